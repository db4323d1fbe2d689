#pragma once
// The one exception hierarchy of odm. Everything odm throws derives from odm::Error,
// so `catch (const odm::Error&)` catches all of it; the subclasses are the cases a
// caller can act on. (Besides these, only what the C++ runtime itself throws, such as
// std::bad_alloc, can leave odm.)
//
// Messages follow one convention: no "odm:" prefix (the type says where it comes from),
// lower case, and they start with what they are about: the dotted path of a PathError
// ("reviews.3.published_date: expected date, got string"), the operation of a driver
// error ("insert into shop.books: ..."), or the call that was wrong ("Ref::id: ...").

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace odm {

/// Root of everything odm throws.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
  // Defined in error.cpp: the class's vtable and type_info are emitted there once, not
  // in every file that includes this header (likewise for each class below).
  ~Error() override;
};
/// The spelling the driver documentation uses; the same type.
using error = Error;

/// An error that belongs to a place in a document: a dotted path such as
/// `reviews.3.published_date`, built up from the innermost value outwards while the
/// exception travels up through the codec.
///
/// Each level costs the same whatever the depth: `prepend` records the key and redoes only
/// the message, which is bounded (a path of more than 16 steps shows its outermost and
/// innermost 8, each step cut after 64 bytes); `path()` joins the steps when asked.
class PathError : public Error {
 public:
  explicit PathError(std::string reason);
  PathError(const PathError&);
  PathError(PathError&&) noexcept;
  PathError& operator=(const PathError&);
  PathError& operator=(PathError&&) noexcept;
  ~PathError() override;

  /// The dotted path of the offending value ("" for the document itself), in full.
  std::string path() const;
  /// How many keys and array indexes the path has.
  std::size_t depth() const noexcept { return steps_.size(); }
  /// What was wrong, without the path.
  const std::string& reason() const noexcept { return reason_; }
  /// "path: reason", or just the reason at the top level.
  const char* what() const noexcept override { return message_.c_str(); }

  /// Called by the codec as the exception leaves a field or array element.
  void prepend(std::string_view key);
  /// Puts the whole path of `inner` in front of this error's (for code that catches an
  /// error and throws another one about the same place).
  void prepend_path_of(const PathError& inner);
  /// Adds `context` at the end of the reason, so code that catches an error can say where
  /// it happened and rethrow it (`throw;`) with its type and data.
  void append_to_reason(std::string_view context);

 private:
  static constexpr std::size_t shown_steps = 8;  // at each end of a long path
  static constexpr std::size_t step_limit = 64;  // bytes of one step

  std::string shown_path() const;

  std::string reason_;
  std::vector<std::string> steps_;  // innermost first
  std::string message_;
};

/// A document could not be turned into the C++ type: wrong BSON type, a missing
/// required field, a value out of range, invalid UTF-8, malformed BSON.
class DecodeError : public PathError {
 public:
  using PathError::PathError;
  ~DecodeError() override;
};

/// A value could not be written as BSON: a map key that would be an operator or a
/// path, a string that is not UTF-8, a document over BSON's size limit.
class EncodeError : public PathError {
 public:
  using PathError::PathError;
  ~EncodeError() override;
};

/// A value that is invalid whatever document it lives in: an ObjectId string that is
/// not 24 hex digits, a decimal out of Decimal128's range, an amount finer than its
/// scale factor allows.
class ValueError : public Error {
 public:
  using Error::Error;
  ~ValueError() override;
};

/// Adding, subtracting or comparing amounts in two different currencies.
class CurrencyMismatch : public ValueError {
 public:
  using ValueError::ValueError;
  ~CurrencyMismatch() override;
};

/// Using a reference's target before it was resolved, or after resolution found that
/// the target does not exist. Never a silent empty object.
class NotLoadedError : public Error {
 public:
  using Error::Error;
  ~NotLoadedError() override;
};

/// A reference whose target does not exist, under the `Dangling::raise` policy.
class DanglingReference : public Error {
 public:
  using Error::Error;
  ~DanglingReference() override;
};

/// odm was called in a way its contract rules out: a bug in the calling code, never a
/// condition of the data or the server. Reading the id of a Ref that was never given one,
/// a position past the end, a member pointer that is not a member of its model.
class UsageError : public Error {
 public:
  using Error::Error;
  ~UsageError() override;
};

/// The stored documents each decode, but together break what an operation relies on:
/// tree references that form a cycle, more distinct ids than one join can gather.
class DataError : public Error {
 public:
  using Error::Error;
  ~DataError() override;
};

namespace detail {
/// Throws UsageError: "<call>: position <position> is past the end (size <size>)".
[[noreturn]] void throw_past_the_end(const char* call, std::size_t position, std::size_t size);
/// `position`, checked against `size` (odm's replacement for std::vector::at, whose
/// std::out_of_range is not an odm::Error).
inline std::size_t checked_position(const char* call, std::size_t position, std::size_t size) {
  if (position >= size) [[unlikely]]
    throw_past_the_end(call, position, size);
  return position;
}
}  // namespace detail

/// Text that is not valid (Extended) JSON.
class JsonError : public Error {
 public:
  using Error::Error;
  ~JsonError() override;
};

}  // namespace odm
