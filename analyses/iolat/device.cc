#include "analyses/iolat/device.h"

#include "absl/strings/str_cat.h"
#include "core/strings.h"

namespace tk::iolat {

std::string DevName(DevId d) { return absl::StrCat(DevMajor(d), ",", DevMinor(d)); }

int LoopThreadMinor(std::string_view comm) {
  if (!comm.starts_with("loop")) return -1;
  std::string_view num = comm.substr(4);
  if (!AllDigits(num) || num.size() > 6) return -1;
  return static_cast<int>(*ParseUint(num));
}

Issuer ClassifyComm(std::string_view comm) {
  if (comm.starts_with("jbd2/") || comm.starts_with("kjournald")) return Issuer::kJournal;
  if (comm.starts_with("kworker/") || comm.starts_with("flush-") || comm == "bdi-default" ||
      comm == "sync_supers") {
    return Issuer::kFlusher;
  }
  if (LoopThreadMinor(comm) >= 0) return Issuer::kStacked;
  if (comm.empty() || comm.starts_with("swapper") || comm.starts_with("ksoftirqd/") ||
      comm.starts_with("kswapd") || comm.starts_with("<")) {
    return Issuer::kKernel;
  }
  return Issuer::kWriter;
}

std::string_view IssuerName(Issuer i) {
  switch (i) {
    case Issuer::kWriter: return "writer";
    case Issuer::kJournal: return "journal";
    case Issuer::kFlusher: return "flusher";
    case Issuer::kStacked: return "stacked";
    case Issuer::kKernel: return "kernel";
  }
  return "?";
}

std::string BccFlagsName(const Rwbs& r) {
  // biolatency.py req_opf: Read Write Flush Discard SecureErase ZoneReset WriteSame WriteZeros.
  std::string desc;
  switch (r.op) {
    case Rwbs::Op::kRead: desc = "Read"; break;
    case Rwbs::Op::kWrite: desc = "Write"; break;
    case Rwbs::Op::kFlush: desc = "Flush"; break;
    case Rwbs::Op::kDiscard: desc = "Discard"; break;
    case Rwbs::Op::kSecureErase: desc = "SecureErase"; break;
    case Rwbs::Op::kZoneReset: desc = "ZoneReset"; break;
    case Rwbs::Op::kWriteZeroes: desc = "WriteZeros"; break;
    default: desc = "Unknown"; break;
  }
  if (r.has(Rwbs::kSync)) desc = "Sync-" + desc;
  if (r.has(Rwbs::kMeta)) desc = "Metadata-" + desc;
  if (r.has(Rwbs::kFua)) desc = "ForcedUnitAccess-" + desc;
  if (r.has(Rwbs::kReadahead)) desc = "ReadAhead-" + desc;
  if (r.has(Rwbs::kPreflush) && r.op != Rwbs::Op::kFlush) desc = "PreFlush-" + desc;
  return desc;
}

}  // namespace tk::iolat
