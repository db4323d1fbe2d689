#pragma once
// Renders resolved references as text, for tests that compare the client-side and the
// server-side join: `id=name` for a loaded target, `id?` for a dangling one, `id!` for a
// reference the join never resolved. Also the options and messages both forms share.

#include <odm/odm.hpp>

#include <cstddef>
#include <string>

namespace odm_test {

template <class R>
std::string show_one(const R& reference) {
  std::string out = odm::detail::describe_id(odm::detail::Access::raw_id(reference));
  if (reference.is_loaded()) return out + "=" + reference->name;
  return out + (reference.is_dangling() ? "?" : "!");
}

template <class R>
std::string show_many(const R& references) {
  std::string out = "[";
  for (std::size_t i = 0; i < references.size(); ++i) {
    out += (i ? ", " : "") + odm::detail::describe_id(odm::detail::Access::raw_ids(references)[i]);
    try {
      out += "=" + references.at(i).name;
    } catch (const odm::NotLoadedError&) {
      out += "?";
    }
  }
  return out + "]";
}

/// Join options that run on side `s`.
inline odm::JoinOptions join_side(odm::JoinSide s) {
  odm::JoinOptions options;
  options.side = s;
  return options;
}

/// An error's message with the command it names made the same on both sides ("find on" /
/// "aggregate on" the same collection): everything else must be identical.
inline std::string same_source(std::string message) {
  for (std::size_t at = message.find("aggregate on "); at != std::string::npos; at = message.find("aggregate on "))
    message.replace(at, 13, "find on ");
  return message;
}

}  // namespace odm_test
