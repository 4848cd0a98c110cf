// An analysis that can take its input in parts: a parser that can cut its input (perf script
// text in memory) parses each part on its own thread into a sink of its own, and the parts'
// results are merged in input order. Parsers that cannot split feed Whole() in one pass.
#ifndef TK_CORE_PART_SINK_H_
#define TK_CORE_PART_SINK_H_

#include <memory>

#include "core/sink.h"

namespace tk {

class PartitionedSink {
 public:
  virtual ~PartitionedSink() = default;
  // The sink of a one-pass parse: the input was not split, or a part had something to report
  // (a malformed line, lost events, unordered time) and the input is parsed again from its
  // start so the messages are exactly a sequential run's.
  virtual EventSink& Whole() = 0;
  // Before the parts start: a sink fed the input's events from its start until it returns a
  // CancelledError or the input ends, for what every part must know of the input's start
  // (fold: the first event type). Null: nothing.
  virtual EventSink* Prescan() { return nullptr; }
  // A fresh sink for one part (called after the prescan).
  virtual std::unique_ptr<EventSink> NewPart() = 0;
  // Adds the results of a part made by NewPart. Called once per part, in input order, when
  // every part parsed cleanly; then Whole() is never fed.
  virtual void MergePart(EventSink& part) = 0;
};

}  // namespace tk

#endif  // TK_CORE_PART_SINK_H_
