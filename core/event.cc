#include "core/event.h"

namespace tk {

std::string_view BlockStageName(BlockStage s) {
  switch (s) {
    case BlockStage::kBioQueue: return "block_bio_queue";
    case BlockStage::kGetRq: return "block_getrq";
    case BlockStage::kSleepRq: return "block_sleeprq";
    case BlockStage::kInsert: return "block_rq_insert";
    case BlockStage::kIssue: return "block_rq_issue";
    case BlockStage::kComplete: return "block_rq_complete";
    case BlockStage::kRequeue: return "block_rq_requeue";
    case BlockStage::kRqMerge: return "block_rq_merge";
    case BlockStage::kBackMerge: return "block_bio_backmerge";
    case BlockStage::kFrontMerge: return "block_bio_frontmerge";
    case BlockStage::kBioRemap: return "block_bio_remap";
    case BlockStage::kRqRemap: return "block_rq_remap";
    case BlockStage::kBioComplete: return "block_bio_complete";
    case BlockStage::kBioBounce: return "block_bio_bounce";
    case BlockStage::kSplit: return "block_split";
    case BlockStage::kIoStart: return "block_io_start";
    case BlockStage::kIoDone: return "block_io_done";
    case BlockStage::kPlug: return "block_plug";
    case BlockStage::kUnplug: return "block_unplug";
    case BlockStage::kDirtyBuffer: return "block_dirty_buffer";
  }
  return "block_unknown";
}

}  // namespace tk
