#include "core/stats.h"

namespace tk {

std::string_view SeverityName(StatSeverity s) {
  switch (s) {
    case StatSeverity::kError: return "error";
    case StatSeverity::kDataLoss: return "data_loss";
    case StatSeverity::kInfo: return "info";
    case StatSeverity::kCount: return "count";
  }
  return "";
}

}  // namespace tk
