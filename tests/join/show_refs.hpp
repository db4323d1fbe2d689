#pragma once
// Renders resolved references as text, for tests that compare the client-side and the
// server-side join: `id=name` for a loaded target, `id?` for a dangling one, `id!` for a
// reference the join never resolved.

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

}  // namespace odm_test
