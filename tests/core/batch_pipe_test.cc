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

}  // namespace
}  // namespace tk
