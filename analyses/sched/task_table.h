// The sched analyses' task table is the one task table (core/task_table.h), fed from the
// events the analysis sees with the rules the parsers use to name each event's thread.
#ifndef TK_ANALYSES_SCHED_TASK_TABLE_H_
#define TK_ANALYSES_SCHED_TASK_TABLE_H_

#include "core/task_table.h"

namespace tk::sched {

using TaskInfo = tk::TaskInfo;
using TaskTable = tk::TaskTable;

}  // namespace tk::sched

#endif  // TK_ANALYSES_SCHED_TASK_TABLE_H_
