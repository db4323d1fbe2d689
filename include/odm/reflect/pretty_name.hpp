#pragma once
// The one reader of __PRETTY_FUNCTION__, which odm uses to learn names at compile time:
// a member's (reflect/members.hpp), an enumerator's (reflect/enums.hpp) and a type's
// (model/collection_name.hpp). Each instantiates a function template on the thing to name
// and reads back how the compiler prints that template argument:
//   g++:   "... f() [with auto V = shop::Color::red; std::string_view = ...]"
//   clang: "... f() [V = shop::Color::red]"
// The self-checks at the end of this file (and of members.hpp) fail to compile, with a
// message, on a compiler that prints these differently, rather than giving wrong names.

#include <cstddef>
#include <string_view>

namespace odm::detail {

template <auto V>
consteval std::string_view pretty_function_of_value() {
  return __PRETTY_FUNCTION__;
}

template <class T>
consteval std::string_view pretty_function_of_type() {
  return __PRETTY_FUNCTION__;
}

/// The text the compiler printed for the template argument: after "V = " or "T = ", up to
/// the ';' or ']' that ends it outside any bracket ("" if there is none).
constexpr std::string_view template_argument_text(std::string_view pretty) {
  std::size_t marker = pretty.find("V = ");
  if (marker == std::string_view::npos) marker = pretty.find("T = ");
  if (marker == std::string_view::npos) return {};
  const std::size_t begin = marker + 4;
  int depth = 0;  // inside <...>, (...), {...} or [...]
  for (std::size_t end = begin; end < pretty.size(); ++end) {
    const char c = pretty[end];
    if (depth == 0 && (c == ';' || c == ']')) return pretty.substr(begin, end - begin);
    if (c == '<' || c == '(' || c == '{' || c == '[') ++depth;
    if (c == '>' || c == ')' || c == '}' || c == ']') --depth;
  }
  return {};
}

/// ASCII letters, digits and '_', plus every byte of a UTF-8 sequence: C++ identifiers may
/// be non-ASCII (`größe`), and both compilers print them as UTF-8.
constexpr bool is_identifier_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;
}

/// The last identifier of `text`: "{&holder.value.Type::title}" -> "title".
constexpr std::string_view last_identifier(std::string_view text) {
  std::size_t end = text.size();
  while (end > 0 && !is_identifier_char(text[end - 1])) --end;
  std::size_t begin = end;
  while (begin > 0 && is_identifier_char(text[begin - 1])) --begin;
  return text.substr(begin, end - begin);
}

/// A type's name without namespaces, enclosing classes or template arguments:
/// "shop::Page<shop::Book>" -> "Page".
template <class T>
consteval std::string_view unqualified_type_name() {
  std::string_view name = template_argument_text(pretty_function_of_type<T>());
  if (const std::size_t angle = name.find('<'); angle != std::string_view::npos) name = name.substr(0, angle);
  if (const std::size_t colons = name.rfind("::"); colons != std::string_view::npos) name = name.substr(colons + 2);
  return name;
}

/// An enumerator's name ("red" for shop::Color::red), or "" for a value without one,
/// which the compilers print as a cast: "(shop::Color)3".
template <auto Value>
consteval std::string_view enumerator_name() {
  std::string_view value = template_argument_text(pretty_function_of_value<Value>());
  constexpr std::string_view anonymous = "(anonymous namespace)::";  // clang's spelling
  if (value.starts_with(anonymous)) value.remove_prefix(anonymous.size());
  if (value.empty() || value.front() == '(' || (value.front() >= '0' && value.front() <= '9') || value.front() == '-' ||
      value.find(')') != std::string_view::npos)
    return {};
  const std::size_t scope = value.rfind("::");
  return scope == std::string_view::npos ? value : value.substr(scope + 2);
}

namespace pretty_name_check {
template <class T>
struct KnownTemplate {};
enum class KnownEnum { known_enumerator = 1 };
}  // namespace pretty_name_check

static_assert(unqualified_type_name<pretty_name_check::KnownTemplate<int>>() == "KnownTemplate" &&
                  enumerator_name<pretty_name_check::KnownEnum::known_enumerator>() == "known_enumerator" &&
                  enumerator_name<static_cast<pretty_name_check::KnownEnum>(7)>().empty(),
              "odm: this compiler prints __PRETTY_FUNCTION__ in a form odm cannot read type and enumerator names from "
              "(odm supports g++ >= 12 and clang >= 14)");

}  // namespace odm::detail
