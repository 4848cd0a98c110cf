// The fast path of sched tracepoint samples (parsers/perf_data/fast_sample.h) gives exactly
// what the full path (ParseSample + libtraceevent-resolved TepDecoder) gives:
//   - record by record, on every committed perf.data fixture: each SAMPLE the fast path
//     takes decodes to the same fields and body as the full path, and the fixtures with sched
//     events do take it;
//   - end to end, through the parser with 1 and 2 threads, from a file and from a stream:
//     the same events in the same order, the same diagnostics;
//   - on damaged copies of the sched fixture (RAW sizes and common_types changed): the same
//     events and the same malformed-record counts as the full path;
//   - on a `perf record -z` style copy of it (records inside COMPRESSED records, so the
//     reader copies them into its batch's arena, where the decoding thread parses them).
#include <zstd.h>

#include <filesystem>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "gtest/gtest.h"
#include "parsers/parser.h"
#include "parsers/perf_data/abi.h"
#include "parsers/perf_data/fast_sample.h"
#include "parsers/perf_data/file_header.h"
#include "parsers/perf_data/sample.h"
#include "parsers/perf_data/tokenizer.h"
#include "parsers/tep/tep_decoder.h"
#include "parsers/tep/tracing_data.h"
#include "tests/support/golden.h"

namespace tk::testing {
namespace {

using parsers::perf_data::EventTable;
using parsers::perf_data::FastResult;
using parsers::perf_data::FastSample;
using parsers::perf_data::FastSampleDecoder;
using parsers::perf_data::ParsedSample;
using parsers::perf_data::RawRecord;
using parsers::perf_data::Tokenizer;

std::string State(const TaskState& s) { return absl::StrCat(s.bits, s.preempted ? "+" : ""); }

// Every field of the bodies the fast path makes; the kind alone for the others.
std::string BodyText(const Body& b) {
  if (const auto* s = std::get_if<SchedSwitch>(&b)) {
    return absl::StrCat("switch ", AV(s->prev_comm), "|", s->prev_pid, "|", s->prev_prio, "|",
                        State(s->prev_state), "|", AV(s->next_comm), "|", s->next_pid, "|",
                        s->next_prio);
  }
  if (const auto* w = std::get_if<SchedWakeup>(&b)) {
    return absl::StrCat("wakeup ", static_cast<int>(w->kind), "|", AV(w->comm), "|", w->pid, "|",
                        w->prio, "|", w->target_cpu, "|", w->success);
  }
  if (const auto* m = std::get_if<SchedMigrate>(&b)) {
    return absl::StrCat("migrate ", AV(m->comm), "|", m->pid, "|", m->prio, "|", m->orig_cpu,
                        "|", m->dest_cpu);
  }
  if (const auto* st = std::get_if<SchedStat>(&b)) {
    return absl::StrCat("stat ", static_cast<int>(st->which), "|", AV(st->comm), "|", st->pid,
                        "|", st->delay_ns, "|", st->vruntime);
  }
  if (const auto* f = std::get_if<SchedFork>(&b)) {
    return absl::StrCat("fork ", AV(f->parent_comm), "|", f->parent_pid, "|", AV(f->child_comm),
                        "|", f->child_pid);
  }
  if (const auto* x = std::get_if<SchedExit>(&b)) {
    return absl::StrCat("exit ", AV(x->comm), "|", x->pid, "|", x->prio, "|",
                        static_cast<int>(x->group_dead));
  }
  if (const auto* c = std::get_if<Comm>(&b)) {
    return absl::StrCat("comm ", c->pid, "|", c->tid, "|", AV(c->comm), "|", c->exec);
  }
  if (const auto* l = std::get_if<Lost>(&b)) {
    return absl::StrCat("lost ", static_cast<int>(l->kind), "|", l->count);
  }
  return absl::StrCat("kind ", b.index());
}

std::string EventText(const Event& e) {
  return absl::StrCat(e.ts_ns, " ", e.cpu, " ", e.pid, " ", e.tid, " [", AV(e.comm), "] ",
                      AV(e.name), " ", e.period, " ", e.has_period, e.callchain, e.stable_views,
                      e.pid_hidden, e.stack_recorded, " ", e.stack.size(), " ",
                      e.dropped_stack_ip.size(), " ", AV(e.info_text), " ", BodyText(e.body));
}

// The events as text, one a line.
class TextSink final : public EventSink {
 public:
  explicit TextSink(EventMask mask) : mask_(mask) {}
  EventMask wants() const override { return mask_; }
  absl::Status OnEvent(const Event& e) override {
    text += EventText(e);
    text += '\n';
    return absl::OkStatus();
  }
  absl::Status Finish() override { return absl::OkStatus(); }
  std::string text;

 private:
  EventMask mask_;
};

// The sched analyses' mask (no stacks), and everything without stacks.
std::vector<EventMask> Masks() {
  EventMask sched = EventMask()
                        .Add(EventKind::kSchedSwitch)
                        .Add(EventKind::kSchedWakeup)
                        .Add(EventKind::kSchedStat)
                        .Add(EventKind::kSchedMigrate)
                        .Add(EventKind::kComm)
                        .Add(EventKind::kFork)
                        .Add(EventKind::kExit)
                        .Add(EventKind::kLost);
  return {sched, EventMask::AllTyped().WithStacks(false)};
}

bool IsPerfData(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  char magic[8] = {};
  f.read(magic, 8);
  return std::string_view(magic, 8) == "PERFILE2" || std::string_view(magic, 8) == "2ELIFREP";
}

std::vector<std::string> Fixtures() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(SourcePath("testdata"))) {
    if (e.is_regular_file() && IsPerfData(e.path().string())) out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string ReadAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

struct ParseRun {
  std::string events, diag;
  std::string status;
};

ParseRun Parse(std::string_view data, bool fast, int threads, EventMask mask, bool stream) {
  std::unique_ptr<Input> in =
      stream ? Input::StreamFromString(data, 4093) : Input::FromString(data);
  ParseOptions opts;
  opts.use_buildid_cache = false;
  opts.use_host_kallsyms = false;
  opts.threads = threads;
  opts.fast_decode = fast;
  TextSink sink(mask);
  std::ostringstream es;
  Diagnostics diag("f", &es);
  absl::Status st = ParseInput(*in, opts, sink, diag);
  diag.PrintSummary();
  return {std::move(sink.text), es.str(), st.ToString()};
}

void ExpectSameAsFull(std::string_view data, const std::string& what) {
  for (EventMask mask : Masks()) {
    ParseRun full = Parse(data, false, 1, mask, false);
    for (int threads : {1, 2}) {
      for (bool stream : {false, true}) {
        ParseRun fast = Parse(data, true, threads, mask, stream);
        ParseRun ref = stream ? Parse(data, false, 1, mask, true) : full;
        std::string where = absl::StrCat(what, " threads ", threads, stream ? " stream" : "");
        EXPECT_EQ(fast.status, ref.status) << where;
        EXPECT_EQ(fast.diag, ref.diag) << where;
        EXPECT_TRUE(fast.events == ref.events) << where << ": events differ";
      }
    }
  }
}

// Decodes every SAMPLE of `path` both ways, record by record; returns how many took the
// fast path, and in `samples` how many there are.
int CompareRecords(const std::string& path, int* samples) {
  *samples = 0;
  std::string data = ReadAll(path);
  absl::StatusOr<parsers::perf_data::Metadata> meta = parsers::perf_data::ReadFileHeader(data);
  if (!meta.ok() || meta->tracing_data.empty()) return 0;
  auto events = parsers::tep::ParseTracingData(meta->tracing_data);
  EXPECT_TRUE(events.ok()) << path << ": " << events.status();  // a fixture must not drop out
  if (!events.ok()) return 0;
  parsers::tep::TepDecoder tep(events->get());
  EventTable table;
  table.Build(*meta);
  FastSampleDecoder fast;
  fast.Build(table, &tep, EventMask::AllTyped().WithStacks(false));
  Tokenizer tok(std::string_view(data).substr(meta->data_offset, meta->data_size),
                meta->data_offset, meta->swap, meta->truncated);
  RawRecord rec;
  int taken = 0;
  while (true) {
    absl::StatusOr<bool> got = tok.Next(&rec);
    if (!got.ok() || !*got) break;
    if (rec.type != parsers::perf_data::kSample) continue;
    ++*samples;
    FastSample s;
    FastResult r = fast.Decode(rec.bytes, &s);
    if (r == FastResult::kNo) continue;
    EXPECT_EQ(r, FastResult::kEvent) << path;  // every kind is wanted here
    ++taken;
    std::string_view body = rec.bytes.substr(8);
    int ev = table.EventOf(rec.type, body);
    ParsedSample p;
    bool parsed = ParseSample(body, table.attr(ev), meta->swap, &p).ok() && p.has_raw;
    EXPECT_TRUE(parsed) << path << " " << rec.offset;
    Event e;
    e.tid = p.tid;
    bool decoded = parsed && tep.Decode(p.raw, e);
    EXPECT_TRUE(decoded) << path << " " << rec.offset;
    if (!decoded) continue;
    EXPECT_EQ(s.tid, p.tid);
    EXPECT_EQ(s.pid, p.pid);
    EXPECT_EQ(s.cpu, p.cpu);
    EXPECT_EQ(s.ts_ns, p.has_time ? static_cast<int64_t>(p.time) : -1);
    const auto& attr = table.attr(ev);
    EXPECT_EQ(s.period, p.has_period ? p.period : (attr.freq() ? 1 : attr.sample_period));
    EXPECT_EQ(s.callchain, p.has_callchain);
    Body fast_body;
    EXPECT_EQ(fast.DecodeBody(s, &fast_body), e.name);
    EXPECT_EQ(BodyText(fast_body), BodyText(e.body)) << path << " offset " << rec.offset;
  }
  return taken;
}

TEST(FastDecode, EveryFixtureRecordMatchesTheTepPath) {
  int files = 0, sched_files = 0;
  for (const std::string& path : Fixtures()) {
    ++files;
    int samples;
    int taken = CompareRecords(path, &samples);
    if (taken > 0) ++sched_files;
    // The perf sched recording is all sched samples: the fast path must take every one.
    if (path.find("recorded/sched/sched.perf.data") != std::string::npos) {
      EXPECT_GT(samples, 5000) << path;
      EXPECT_EQ(taken, samples) << path;
    }
  }
  EXPECT_GT(files, 20);
  EXPECT_GE(sched_files, 4);
}

TEST(FastDecode, ParserGivesTheSameEventsAsTheFullPath) {
  for (const std::string& path : Fixtures()) ExpectSameAsFull(ReadAll(path), path);
}

// Damaged copies: SAMPLE records whose RAW size or payload common_type was changed. Both
// paths must skip (and count) the same records and decode the others alike.
TEST(FastDecode, DamagedSamplesAreTheFullPathsToReport) {
  std::string path = SourcePath("testdata/recorded/sched/sched.perf.data");
  std::string data = ReadAll(path);
  absl::StatusOr<parsers::perf_data::Metadata> meta = parsers::perf_data::ReadFileHeader(data);
  ASSERT_TRUE(meta.ok());
  EventTable table;
  table.Build(*meta);
  Tokenizer tok(std::string_view(data).substr(meta->data_offset, meta->data_size),
                meta->data_offset, meta->swap, meta->truncated);
  std::vector<uint64_t> raw_at;  // file offsets of the RAW size of each sample
  RawRecord rec;
  while (true) {
    absl::StatusOr<bool> got = tok.Next(&rec);
    if (!got.ok() || !*got) break;
    if (rec.type != parsers::perf_data::kSample) continue;
    ParsedSample p;
    std::string_view body = rec.bytes.substr(8);
    if (!ParseSample(body, table.attr(table.EventOf(rec.type, body)), meta->swap, &p).ok()) continue;
    raw_at.push_back(rec.offset + 8 + static_cast<uint64_t>(p.raw.data() - body.data()) - 4);
  }
  ASSERT_GT(raw_at.size(), 1000u);
  std::string damaged = data;
  for (size_t i = 0; i < raw_at.size(); i += 97) {
    char* size = damaged.data() + raw_at[i];
    switch (i % 4) {
      case 0: size[0] = 6; size[1] = size[2] = size[3] = 0; break;    // shorter than the format
      case 1: size[0] = size[1] = size[2] = size[3] = '\x7f'; break;  // past the record
      case 2: size[4] ^= 0x01; break;                                 // another common_type
      case 3: size[4] = size[5] = '\xff'; break;                      // an unknown one
    }
  }
  ExpectSameAsFull(damaged, "damaged sched.perf.data");
  ParseRun full = Parse(damaged, false, 1, Masks()[0], false);
  EXPECT_NE(full.diag.find("malformed"), std::string::npos) << full.diag;
}

// The data section recompressed as perf record -z writes it: COMPRESSED2 records (type 83,
// {header, u64 data_size, zstd bytes, padding}) of one zstd stream, flushed every 16 KiB of records; then, so the
// file keeps its size and its feature sections their offsets, SWITCH records (no handler,
// no time) of zeros up to the old data size.
std::string Compressed(const std::string& data) {
  absl::StatusOr<parsers::perf_data::Metadata> meta = parsers::perf_data::ReadFileHeader(data);
  EXPECT_TRUE(meta.ok());
  if (!meta.ok()) return "";
  std::string_view section = std::string_view(data).substr(meta->data_offset, meta->data_size);
  ZSTD_CCtx* z = ZSTD_createCCtx();
  std::string out;
  auto record = [&](uint32_t type, std::string_view body) {
    std::string rec(8, '\0');
    uint16_t size = static_cast<uint16_t>((8 + body.size() + 7) & ~size_t{7});
    std::memcpy(rec.data(), &type, 4);
    std::memcpy(rec.data() + 6, &size, 2);
    rec.append(body);
    rec.resize(size, '\0');
    out += rec;
  };
  constexpr size_t kChunk = 16 << 10;
  std::string buf(ZSTD_compressBound(kChunk) + 64, '\0');
  for (size_t at = 0; at < section.size(); at += kChunk) {
    std::string_view chunk = section.substr(at, kChunk);
    ZSTD_inBuffer in{chunk.data(), chunk.size(), 0};
    ZSTD_outBuffer o{buf.data(), buf.size(), 0};
    bool last = at + kChunk >= section.size();
    size_t left = ZSTD_compressStream2(z, &o, &in, last ? ZSTD_e_end : ZSTD_e_flush);
    EXPECT_EQ(left, 0u);
    EXPECT_LT(o.pos, 65000u);
    std::string body(8, '\0');
    uint64_t n = o.pos;
    std::memcpy(body.data(), &n, 8);
    body.append(buf.data(), o.pos);
    record(parsers::perf_data::kCompressed2, body);
  }
  ZSTD_freeCCtx(z);
  EXPECT_LE(out.size() + 8, section.size());
  while (out.size() < section.size()) {
    size_t n = std::min<size_t>(section.size() - out.size() - 8, 65520);
    record(parsers::perf_data::kSwitch, std::string(n, '\0'));
  }
  std::string file = data;
  file.replace(meta->data_offset, meta->data_size, out);
  return file;
}

TEST(FastDecode, CompressedRecordsAreCopiedAndDecodedAlike) {
  std::string data = ReadAll(SourcePath("testdata/recorded/sched/sched.perf.data"));
  std::string z = Compressed(data);
  ASSERT_EQ(z.size(), data.size());
  ExpectSameAsFull(z, "compressed sched.perf.data");
  // The events are those of the original file.
  std::string a = Parse(z, true, 2, Masks()[0], false).events;
  std::string b = Parse(data, true, 2, Masks()[0], false).events;
  EXPECT_TRUE(a == b) << "compressed copy: other events";
}

}  // namespace
}  // namespace tk::testing
