#pragma once
// The one exception hierarchy of odm. Everything odm throws derives from odm::Error,
// so `catch (const odm::Error&)` catches all of it; the subclasses are the cases a
// caller can act on.

#include <stdexcept>
#include <string>
#include <string_view>

namespace odm {

/// Root of everything odm throws.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
/// The spelling the driver documentation uses; the same type.
using error = Error;

/// An error that belongs to a place in a document: a dotted path such as
/// `reviews.3.published_date`, built up from the innermost value outwards while the
/// exception travels up through the codec.
class PathError : public Error {
 public:
  explicit PathError(std::string reason) : Error(reason), reason_(std::move(reason)) {}

  /// The dotted path of the offending value ("" for the document itself).
  const std::string& path() const noexcept { return path_; }
  /// What was wrong, without the path.
  const std::string& reason() const noexcept { return reason_; }
  /// "path: reason", or just the reason at the top level.
  const char* what() const noexcept override { return message_.empty() ? reason_.c_str() : message_.c_str(); }

  /// Called by the codec as the exception leaves a field or array element.
  void prepend(std::string_view key) {
    path_ = path_.empty() ? std::string(key) : std::string(key) + "." + path_;
    message_ = path_ + ": " + reason_;
  }

 private:
  std::string reason_;
  std::string path_;
  std::string message_;
};

/// A document could not be turned into the C++ type: wrong BSON type, a missing
/// required field, a value out of range, invalid UTF-8, malformed BSON.
class DecodeError : public PathError {
 public:
  using PathError::PathError;
};

/// A value could not be written as BSON: a map key that would be an operator or a
/// path, a string that is not UTF-8, a document over BSON's size limit.
class EncodeError : public PathError {
 public:
  using PathError::PathError;
};

/// A value that is invalid whatever document it lives in: an ObjectId string that is
/// not 24 hex digits, a decimal out of Decimal128's range, an amount finer than its
/// scale factor allows.
class ValueError : public Error {
 public:
  using Error::Error;
};

/// Adding, subtracting or comparing amounts in two different currencies.
class CurrencyMismatch : public ValueError {
 public:
  using ValueError::ValueError;
};

/// Using a reference's target before it was resolved, or after resolution found that
/// the target does not exist. Never a silent empty object.
class NotLoadedError : public Error {
 public:
  using Error::Error;
};

/// A reference whose target does not exist, under the `Dangling::raise` policy.
class DanglingReference : public Error {
 public:
  using Error::Error;
};

/// Text that is not valid (Extended) JSON.
class JsonError : public Error {
 public:
  using Error::Error;
};

}  // namespace odm
