// core/batch_pipe.h: order, the bound on queued batches, the barrier, cancellation.
#include "core/batch_pipe.h"

#include <atomic>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace tk {
namespace {

struct Batch {
  std::vector<int> items;
};

TEST(BatchPipe, EverythingArrivesInOrder) {
  BatchPipe<Batch> pipe(2);
  std::thread producer([&] {
    for (int b = 0; b < 100; ++b) {
      std::unique_ptr<Batch> x = pipe.Get();
      x->items.clear();
      for (int i = 0; i < 10; ++i) x->items.push_back(b * 10 + i);
      ASSERT_TRUE(pipe.Put(std::move(x)));
    }
    pipe.Close();
  });
  std::vector<int> got;
  while (std::unique_ptr<Batch> b = pipe.Take()) {
    got.insert(got.end(), b->items.begin(), b->items.end());
    pipe.Done(std::move(b));
  }
  producer.join();
  ASSERT_EQ(got.size(), 1000u);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(got[i], i);
}

TEST(BatchPipe, ProducerWaitsWhenFull) {
  BatchPipe<Batch> pipe(2);
  std::atomic<int> put{0};
  std::thread producer([&] {
    for (int i = 0; i < 5; ++i) {
      if (!pipe.Put(pipe.Get())) return;
      ++put;
    }
    pipe.Close();
  });
  while (put.load() < 2) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(put.load(), 2) << "a third batch was queued past the bound";
  int taken = 0;
  while (std::unique_ptr<Batch> b = pipe.Take()) {
    ++taken;
    pipe.Done(std::move(b));
  }
  producer.join();
  EXPECT_EQ(taken, 5);
}

TEST(BatchPipe, BarrierWaitsForTheConsumer) {
  BatchPipe<Batch> pipe;
  std::atomic<int> done{0};
  int seen_at_barrier = -1;
  std::thread producer([&] {
    for (int i = 0; i < 3; ++i) ASSERT_TRUE(pipe.Put(pipe.Get()));
    ASSERT_TRUE(pipe.Barrier());
    seen_at_barrier = done.load();
    pipe.Close();
  });
  while (std::unique_ptr<Batch> b = pipe.Take()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ++done;
    pipe.Done(std::move(b));
  }
  producer.join();
  EXPECT_EQ(seen_at_barrier, 3);
}

TEST(BatchPipe, CancelStopsABlockedProducer) {
  BatchPipe<Batch> pipe(1);
  bool last_put = true;
  std::thread producer([&] {
    while ((last_put = pipe.Put(pipe.Get()))) {
    }
    EXPECT_FALSE(pipe.Barrier());
    pipe.Close();
  });
  std::unique_ptr<Batch> first = pipe.Take();
  ASSERT_NE(first, nullptr);
  pipe.Cancel();
  producer.join();
  EXPECT_FALSE(last_put);
  EXPECT_EQ(pipe.Take(), nullptr);
}

// TryPut/TryTake never wait; Put and Barrier with an idle function do its work while they
// would wait, and still keep the order and the bound.
TEST(BatchPipe, TryPutTryTake) {
  BatchPipe<Batch> pipe(2);
  EXPECT_EQ(pipe.TryTake(), nullptr);
  EXPECT_EQ(pipe.queued(), 0u);
  for (int i = 0; i < 2; ++i) {
    std::unique_ptr<Batch> b = pipe.Get();
    b->items = {i};
    ASSERT_TRUE(pipe.TryPut(b));
    EXPECT_EQ(b, nullptr);
    EXPECT_EQ(pipe.queued(), static_cast<size_t>(i + 1));
  }
  std::unique_ptr<Batch> third = pipe.Get();
  third->items = {2};
  EXPECT_FALSE(pipe.TryPut(third)) << "past the bound";
  ASSERT_NE(third, nullptr) << "a refused batch stays the caller's";
  EXPECT_EQ(pipe.queued(), 2u) << "a refused batch is not queued";
  std::unique_ptr<Batch> first = pipe.TryTake();
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(pipe.queued(), 1u);
  EXPECT_EQ(first->items, std::vector<int>{0});
  pipe.Done(std::move(first));
  EXPECT_TRUE(pipe.TryPut(third));
  std::vector<int> rest;
  while (std::unique_ptr<Batch> b = pipe.TryTake()) {
    rest.push_back(b->items[0]);
    pipe.Done(std::move(b));
  }
  EXPECT_EQ(rest, (std::vector<int>{1, 2}));
  pipe.Cancel();
  std::unique_ptr<Batch> late = pipe.Get();
  EXPECT_FALSE(pipe.TryPut(late));
}

TEST(BatchPipe, PutAndBarrierDoIdleWorkWhileTheyWait) {
  BatchPipe<Batch> pipe(1);
  std::atomic<int> idle_calls{0};
  std::atomic<bool> consumer_may_go{false};
  std::thread producer([&] {
    for (int b = 0; b < 20; ++b) {
      std::unique_ptr<Batch> x = pipe.Get();
      x->items = {b};
      // The idle work stands for the sink's side work: it lets the consumer go once called.
      ASSERT_TRUE(pipe.Put(std::move(x), [&] {
        ++idle_calls;
        consumer_may_go = true;
        return false;  // nothing done: the producer sleeps a while
      }));
    }
    ASSERT_TRUE(pipe.Barrier([&] { return false; }));
    pipe.Close();
  });
  while (!consumer_may_go.load()) std::this_thread::yield();
  std::vector<int> got;
  while (std::unique_ptr<Batch> b = pipe.Take()) {
    got.push_back(b->items[0]);
    pipe.Done(std::move(b));
  }
  producer.join();
  ASSERT_EQ(got.size(), 20u);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(got[i], i);
  EXPECT_GT(idle_calls.load(), 0);
}

}  // namespace
}  // namespace tk
