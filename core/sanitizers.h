// Which sanitizer a translation unit is built with, for code that must behave differently
// under one: memory left for the process's exit to free (the leak checker would report it),
// memory mapped past the allocator (the sanitizers' allocators track every block).
// gcc defines __SANITIZE_ADDRESS__ / __SANITIZE_THREAD__; clang answers __has_feature.
#ifndef TK_CORE_SANITIZERS_H_
#define TK_CORE_SANITIZERS_H_

#if defined(__has_feature)
#define TK_HAS_FEATURE(x) __has_feature(x)
#else
#define TK_HAS_FEATURE(x) 0
#endif

namespace tk {

inline constexpr bool kAddressOrMemorySanitizer =
#if defined(__SANITIZE_ADDRESS__) || TK_HAS_FEATURE(address_sanitizer) || \
    TK_HAS_FEATURE(memory_sanitizer)
    true;
#else
    false;
#endif

inline constexpr bool kThreadSanitizer =
#if defined(__SANITIZE_THREAD__) || TK_HAS_FEATURE(thread_sanitizer)
    true;
#else
    false;
#endif

}  // namespace tk

#undef TK_HAS_FEATURE

#endif  // TK_CORE_SANITIZERS_H_
