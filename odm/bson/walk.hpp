#pragma once
// A walk over every value of a BSON document with a loop and an explicit stack, never
// recursion, so that no input can exhaust the stack: the validation of Document::from_bytes,
// of the fields a model skips, and the checks Document::to_json makes before printing.

#include <bson/bson.h>

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace odm::detail {

/// What else a walk checks, for Extended JSON output that must read back.
enum class JsonCheck { none, relaxed, canonical };

/// The deepest nesting of JSON objects and arrays that libbson's Extended JSON reader
/// accepts (its parser stack holds 100 frames; 98 levels of objects and arrays fit).
inline constexpr std::size_t json_reader_depth = 98;

/// The first problem a walk found: where (keys from the outermost down) and what.
struct WalkProblem {
  std::vector<std::string> path;
  std::string reason;
};

/// Checks `document`, which sits at nesting `level` (1 for a whole document): the
/// structure of every element and nested document, UTF-8 of every key and of every
/// string-like value (strings, code, symbols, regular expressions, DBPointer namespaces,
/// code with scope), and that nothing is nested past odm::max_depth. With a JsonCheck,
/// also what Extended JSON cannot carry back (see Document::to_json).
std::optional<WalkProblem> walk_document(const bson_t* document, std::size_t level, JsonCheck json);

/// The same for the one value `it` is on, in a document at nesting `level`.
std::optional<WalkProblem> walk_value(const bson_iter_t& it, std::size_t level);

/// Throws the problem as an Error of type E (DecodeError, EncodeError) with its path.
template <class E>
[[noreturn]] void throw_problem(WalkProblem&& problem) {
  E error(std::move(problem.reason));
  for (auto step = problem.path.rbegin(); step != problem.path.rend(); ++step) error.prepend(*step);
  throw error;
}

}  // namespace odm::detail
