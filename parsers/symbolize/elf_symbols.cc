#include "parsers/symbolize/elf_symbols.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "absl/strings/str_format.h"
#include "core/strings.h"

namespace tk::parsers::symbolize {

// An open ELF file; closes on scope exit.
class ElfFile {
 public:
  explicit ElfFile(const std::string& path) {
    elf_version(EV_CURRENT);
    fd_ = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) return;
    elf_ = elf_begin(fd_, ELF_C_READ_MMAP, nullptr);
    if (elf_ && elf_kind(elf_) != ELF_K_ELF) {
      elf_end(elf_);
      elf_ = nullptr;
    }
  }
  ~ElfFile() {
    if (elf_) elf_end(elf_);
    if (fd_ >= 0) close(fd_);
  }
  Elf* get() const { return elf_; }

 private:
  int fd_ = -1;
  Elf* elf_ = nullptr;
};

ElfFiles::ElfFiles() = default;
ElfFiles::~ElfFiles() = default;

std::shared_ptr<ElfFile> ElfFiles::Open(const std::string& path) {
  for (auto it = recent_.begin(); it != recent_.end(); ++it) {
    if (it->first != path) continue;
    std::shared_ptr<ElfFile> f = it->second;
    recent_.erase(it);
    recent_.emplace_back(path, f);
    return f;
  }
  auto f = std::make_shared<ElfFile>(path);
  if (!f->get()) return f;  // most candidates do not exist: they must not push out the file
  if (recent_.size() >= kKeep) recent_.erase(recent_.begin());
  recent_.emplace_back(path, f);
  return f;
}

namespace {

constexpr uint32_t kNtGnuBuildId = 3;

// `files`' copy of the file, or a fresh one.
std::shared_ptr<ElfFile> OpenElf(const std::string& path, ElfFiles* files) {
  return files ? files->Open(path) : std::make_shared<ElfFile>(path);
}

// NT_GNU_BUILD_ID from any SHT_NOTE section: {u32 namesz, descsz, type, "GNU\0", desc}.
std::string BuildId(Elf* elf) {
  Elf_Scn* scn = nullptr;
  while ((scn = elf_nextscn(elf, scn)) != nullptr) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data) continue;
    size_t off = 0, name_off, desc_off;
    GElf_Nhdr nh;
    while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
      if (nh.n_type == kNtGnuBuildId && nh.n_namesz == 4 &&
          std::memcmp(static_cast<char*>(data->d_buf) + name_off, "GNU", 4) == 0) {
        std::string hex;
        const auto* p = static_cast<const unsigned char*>(data->d_buf) + desc_off;
        for (size_t i = 0; i < nh.n_descsz; ++i) absl::StrAppendFormat(&hex, "%02x", p[i]);
        return hex;
      }
    }
  }
  return "";
}

Elf_Scn* FindSymtab(Elf* elf, uint32_t type) {
  Elf_Scn* scn = nullptr;
  while ((scn = elf_nextscn(elf, scn)) != nullptr) {
    GElf_Shdr sh;
    if (gelf_getshdr(scn, &sh) && sh.sh_type == type) return scn;
  }
  return nullptr;
}

// Symbol values are virtual addresses; perf's map_ip space is file offsets: translate through
// the PT_LOAD segment holding the address (a separate debug file keeps the same segments).
struct Segments {
  std::vector<GElf_Phdr> loads;
  explicit Segments(Elf* elf) {
    size_t n = 0;
    if (elf_getphdrnum(elf, &n) != 0) return;
    for (size_t i = 0; i < n; ++i) {
      GElf_Phdr ph;
      if (gelf_getphdr(elf, static_cast<int>(i), &ph) && ph.p_type == PT_LOAD) loads.push_back(ph);
    }
  }
  bool ToOffset(uint64_t vaddr, uint64_t* off) const {
    for (const GElf_Phdr& ph : loads) {
      if (vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_memsz) {
        *off = vaddr - ph.p_vaddr + ph.p_offset;
        return true;
      }
    }
    return false;
  }
};

// Section facts looked up once per file, not per symbol.
struct SectionInfo {
  uint64_t addr_minus_offset = 0;
  bool valid = false;
  bool text = false;  // the name contains "text"
};

std::vector<SectionInfo> Sections(Elf* elf) {
  std::vector<SectionInfo> out;
  size_t shnum = 0, shstrndx = 0;
  if (elf_getshdrnum(elf, &shnum) != 0 || elf_getshdrstrndx(elf, &shstrndx) != 0) return out;
  out.resize(shnum);
  for (size_t i = 0; i < shnum; ++i) {
    GElf_Shdr sh;
    Elf_Scn* scn = elf_getscn(elf, i);
    if (!scn || !gelf_getshdr(scn, &sh)) continue;
    const char* name = elf_strptr(elf, shstrndx, sh.sh_name);
    out[i] = SectionInfo{sh.sh_addr - sh.sh_offset, true, name && std::strstr(name, "text")};
  }
  return out;
}

void ReadSymbols(Elf* elf, Elf_Scn* symtab, const Segments& segs, SymbolTable* out) {
  GElf_Shdr symsh;
  gelf_getshdr(symtab, &symsh);
  Elf_Data* data = elf_getdata(symtab, nullptr);
  Elf_Scn* strscn = elf_getscn(elf, symsh.sh_link);
  Elf_Data* strs = strscn ? elf_getdata(strscn, nullptr) : nullptr;
  if (!data || !strs || !strs->d_buf || symsh.sh_entsize == 0) return;
  std::string_view strtab(static_cast<const char*>(strs->d_buf), strs->d_size);
  std::vector<SectionInfo> secs = Sections(elf);
  size_t n = symsh.sh_size / symsh.sh_entsize;
  out->Reserve(n);
  // A 64-bit file's symbols as libelf hands them over (translated to this host's layout):
  // read in place, not copied out one gelf_getsym call at a time (cc1plus: 31k symbols).
  const Elf64_Sym* direct = nullptr;
  if (gelf_getclass(elf) == ELFCLASS64 && data->d_type == ELF_T_SYM && data->d_buf &&
      reinterpret_cast<uintptr_t>(data->d_buf) % alignof(Elf64_Sym) == 0) {
    direct = static_cast<const Elf64_Sym*>(data->d_buf);
    n = std::min(n, data->d_size / sizeof(Elf64_Sym));
  }
  // A name's bytes are asked for this many symbols ahead: the symbols come in hash order, so
  // their names are random reads of the string table (cc1plus: 1.4 MB for 31k names), and
  // finding each name's end waited for its line (~78% of loading cc1plus's symbols).
  constexpr size_t kAhead = 16;
  for (size_t i = 0; i < n; ++i) {
    if (direct && i + kAhead < n && direct[i + kAhead].st_name < strtab.size()) {
      const char* ahead = strtab.data() + direct[i + kAhead].st_name;
      __builtin_prefetch(ahead);
      __builtin_prefetch(ahead + 63);
    }
    GElf_Sym sym;
    if (direct) {
      sym = direct[i];  // GElf_Sym is Elf64_Sym
    } else if (!gelf_getsym(data, static_cast<int>(i), &sym)) {
      break;
    }
    int type = GELF_ST_TYPE(sym.st_info);
    bool func = (type == STT_FUNC || type == STT_GNU_IFUNC) && sym.st_name != 0 &&
                sym.st_shndx != SHN_UNDEF;
    bool object = type == STT_OBJECT && sym.st_name != 0 && sym.st_shndx != SHN_UNDEF;
    bool label = type == STT_NOTYPE && sym.st_name != 0 && sym.st_shndx != SHN_UNDEF &&
                 sym.st_shndx != SHN_ABS;
    if ((!func && !object && !label) || sym.st_shndx >= SHN_LORESERVE) continue;
    if (sym.st_shndx >= secs.size() || !secs[sym.st_shndx].valid) continue;
    const SectionInfo& sec = secs[sym.st_shndx];
    if (label && !sec.text) continue;  // only labels must sit in a "text" section
    if (sym.st_name >= strtab.size()) continue;
    // (core/strings.h's FindByte: a memchr call per name was a fifth of loading cc1plus's
    // 31k dynamic symbols.)
    const char* from = strtab.data() + sym.st_name;
    std::string_view name(from, static_cast<size_t>(
                                    FindByte(from, strtab.data() + strtab.size(), '\0') - from));
    if (name.empty()) continue;
    int bind = GELF_ST_BIND(sym.st_info);
    Binding b = bind == STB_WEAK ? Binding::kWeak : bind == STB_GLOBAL ? Binding::kGlobal : Binding::kLocal;
    uint64_t start;
    if (!segs.ToOffset(sym.st_value, &start)) start = sym.st_value - sec.addr_minus_offset;
    out->AddView(start, sym.st_size, name, b, name.starts_with("_Z"));
  }
}

Elf_Scn* SectionByName(Elf* elf, const char* want, GElf_Shdr* sh) {
  size_t shstrndx;
  if (elf_getshdrstrndx(elf, &shstrndx) != 0) return nullptr;
  Elf_Scn* scn = nullptr;
  while ((scn = elf_nextscn(elf, scn)) != nullptr) {
    if (!gelf_getshdr(scn, sh)) continue;
    const char* name = elf_strptr(elf, shstrndx, sh->sh_name);
    if (name && std::strcmp(name, want) == 0) return scn;
  }
  return nullptr;
}

// perf 6.1's dso__synthesize_plt_symbols for x86: "NAME@plt" for the i-th .rela.plt entry at
// .plt's file offset + 16 (the PLT header) + 16·i, 16 bytes long. E.g. cc1plus's 295th
// relocation is free's, so 0x258020 + 0x10 + 294·0x10 = 0x259290 prints as
//   259290 free@plt+0x0 (/usr/lib/gcc/x86_64-linux-gnu/12/cc1plus)
// (IRELATIVE entries have no symbol: "@plt"). .plt.sec is not looked at (perf 6.1 does not).
void AddPltSymbols(Elf* elf, SymbolTable* out) {
  GElf_Ehdr eh;
  if (!gelf_getehdr(elf, &eh) || (eh.e_machine != EM_X86_64 && eh.e_machine != EM_386)) return;
  GElf_Shdr rel_sh, plt_sh, dyn_sh;
  Elf_Scn* rel = SectionByName(elf, ".rela.plt", &rel_sh);
  if (!rel) rel = SectionByName(elf, ".rel.plt", &rel_sh);
  Elf_Scn* plt = SectionByName(elf, ".plt", &plt_sh);
  if (!rel || !plt || rel_sh.sh_entsize == 0) return;
  Elf_Scn* dynsym = elf_getscn(elf, rel_sh.sh_link);
  if (!dynsym || !gelf_getshdr(dynsym, &dyn_sh)) return;
  Elf_Data* rel_data = elf_getdata(rel, nullptr);
  Elf_Data* sym_data = elf_getdata(dynsym, nullptr);
  if (!rel_data || !sym_data) return;
  constexpr uint64_t kEntry = 16;
  size_t n = rel_sh.sh_size / rel_sh.sh_entsize;
  for (size_t i = 0; i < n; ++i) {
    uint64_t info;
    if (rel_sh.sh_type == SHT_RELA) {
      GElf_Rela r;
      if (!gelf_getrela(rel_data, static_cast<int>(i), &r)) break;
      info = r.r_info;
    } else {
      GElf_Rel r;
      if (!gelf_getrel(rel_data, static_cast<int>(i), &r)) break;
      info = r.r_info;
    }
    GElf_Sym sym;
    const char* name = "";
    if (gelf_getsym(sym_data, static_cast<int>(GELF_R_SYM(info)), &sym)) {
      name = elf_strptr(elf, dyn_sh.sh_link, sym.st_name);
      if (!name) name = "";
    }
    out->AddPlt(plt_sh.sh_offset + kEntry + i * kEntry, kEntry, name);
  }
  out->SortAdded();
}

}  // namespace

std::optional<std::string> ReadElfBuildId(const std::string& path, ElfFiles* files) {
  std::shared_ptr<ElfFile> f = OpenElf(path, files);
  if (!f->get()) return std::nullopt;
  return BuildId(f->get());
}

std::optional<ElfImage> LoadElf(const std::vector<std::string>& candidates,
                                const std::string& want_build_id, ElfFiles* files) {
  // perf's syms_ss (the first file with a .symtab) and runtime_ss (the first with a real
  // .dynsym: not a separate debug file, whose allocated sections and segment offsets are
  // placeholders). Symbols come from the first, file offsets from the second's segments.
  std::string symtab_path, runtime_path;
  for (const std::string& path : candidates) {
    std::shared_ptr<ElfFile> f = OpenElf(path, files);
    if (!f->get()) continue;
    std::string id = BuildId(f->get());
    if (!want_build_id.empty() && !id.empty() && id != want_build_id) continue;
    if (symtab_path.empty() && FindSymtab(f->get(), SHT_SYMTAB)) symtab_path = path;
    if (runtime_path.empty() && FindSymtab(f->get(), SHT_DYNSYM)) runtime_path = path;
    if (!symtab_path.empty() && !runtime_path.empty()) break;
  }
  if (symtab_path.empty() && runtime_path.empty()) return std::nullopt;
  std::shared_ptr<ElfFile> runtime_file =
      OpenElf(runtime_path.empty() ? symtab_path : runtime_path, files);
  // The symbol file stays mapped while its table lives: names are views into its strtab.
  std::shared_ptr<ElfFile> syms = OpenElf(symtab_path.empty() ? runtime_path : symtab_path, files);
  if (!runtime_file->get() || !syms->get()) return std::nullopt;
  const ElfFile& runtime = *runtime_file;
  ElfImage img;
  img.build_id = BuildId(syms->get());
  img.path = symtab_path.empty() ? runtime_path : symtab_path;
  Segments segs(runtime.get());
  ReadSymbols(syms->get(), FindSymtab(syms->get(), symtab_path.empty() ? SHT_DYNSYM : SHT_SYMTAB),
              segs, &img.symbols);
  img.symbols.KeepAlive(syms);
  img.symbols.Finalize(false);
  AddPltSymbols(runtime.get(), &img.symbols);
  if (runtime_file != syms) img.symbols.KeepAlive(runtime_file);  // the PLT names' .dynstr
  return img;
}

std::optional<std::string> ReadDebugLink(const std::string& path, ElfFiles* files) {
  std::shared_ptr<ElfFile> file = OpenElf(path, files);
  const ElfFile& f = *file;
  if (!f.get()) return std::nullopt;
  size_t shstrndx;
  if (elf_getshdrstrndx(f.get(), &shstrndx) != 0) return std::nullopt;
  Elf_Scn* scn = nullptr;
  while ((scn = elf_nextscn(f.get(), scn)) != nullptr) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh)) continue;
    const char* name = elf_strptr(f.get(), shstrndx, sh.sh_name);
    if (!name || std::strcmp(name, ".gnu_debuglink") != 0) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data || data->d_size == 0) return std::nullopt;
    const char* s = static_cast<const char*>(data->d_buf);
    return std::string(s, strnlen(s, data->d_size));
  }
  return std::nullopt;
}

}  // namespace tk::parsers::symbolize
