// Which sanitizer a translation unit is built with, for code that must behave differently
// under one: memory left for the process's exit to free (the leak checker would report it),
// memory mapped past the allocator (the sanitizers' allocators track every block).
// gcc defines __SANITIZE_ADDRESS__ / __SANITIZE_THREAD__; clang answers __has_feature.
#ifndef TK_CORE_SANITIZERS_H_
#define TK_CORE_SANITIZERS_H_

namespace tk {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAddressOrMemorySanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
inline constexpr bool kAddressOrMemorySanitizer = true;
#else
inline constexpr bool kAddressOrMemorySanitizer = false;
#endif
#else
inline constexpr bool kAddressOrMemorySanitizer = false;
#endif

#if defined(__SANITIZE_THREAD__)
inline constexpr bool kThreadSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
inline constexpr bool kThreadSanitizer = true;
#else
inline constexpr bool kThreadSanitizer = false;
#endif
#else
inline constexpr bool kThreadSanitizer = false;
#endif

}  // namespace tk

#endif  // TK_CORE_SANITIZERS_H_
