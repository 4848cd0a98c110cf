// JSON string output shared by every --json writer (tk script's JSON Lines, tk sched
// timehist's): strings escaped per RFC 8259, invalid UTF-8 replaced by U+FFFD, so every
// --json output is valid UTF-8 whatever bytes a comm holds. (Writers built on nlohmann_json
// dump with error_handler_t::replace, the same rule.)
//
// Hand-written rather than nlohmann_json: one line per event is the hot path of
// `tk script --json` (millions of lines), and nlohmann builds a DOM per line (an allocation per
// key and value) and throws on invalid UTF-8 (comms are raw bytes). Here a line is appended to
// one reused buffer. BM_ScriptJson measures it.
#ifndef TK_ANALYSES_COMMON_JSON_H_
#define TK_ANALYSES_COMMON_JSON_H_

#include <string>
#include <string_view>

namespace tk::common {

// Appends `s` as a quoted JSON string. Control characters become \n, \t, \u00XX; bytes that
// are not valid UTF-8 become U+FFFD.
void AppendJsonString(std::string_view s, std::string* out);

// Appends a decimal integer literal given as text ("001", "-5") as a valid JSON number
// (leading zeros dropped); as a string when it is not an integer.
void AppendJsonNumberText(std::string_view s, std::string* out);

}  // namespace tk::common

#endif  // TK_ANALYSES_COMMON_JSON_H_
