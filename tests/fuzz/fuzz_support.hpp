#pragma once
// What the fuzz targets share: running an input through every model and stopping, loudly,
// on any behaviour odm does not promise.

#include "fuzz_models.hpp"

#include <odm/odm.hpp>

#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>

namespace fuzz_support {

/// Reports a broken promise and aborts, which libFuzzer records as a crash with the input.
[[noreturn]] inline void broken(const std::string& what) {
  std::fprintf(stderr, "odm fuzz: %s\n", what.c_str());
  std::abort();
}

/// Decodes `document` as T. DecodeError is the one exception decoding may throw (anything
/// else escapes and libFuzzer reports it). What decodes must encode (or be refused with
/// an EncodeError, for a decoded map key odm will not write), and what odm encodes, odm
/// must decode.
template <class T>
bool decodes_as(const bson_t* document) {
  T value;
  try {
    value = odm::from_bson<T>(document);
  } catch (const odm::DecodeError&) {
    return false;
  }
  odm::Document again;
  try {
    again = odm::to_bson(value);
  } catch (const odm::EncodeError&) {
    return true;
  }
  try {
    (void)odm::from_bson<T>(again);
  } catch (const odm::DecodeError& e) {
    broken(std::string("odm cannot decode what it encoded: ") + e.what() + "\n  " + again.to_canonical_json());
  }
  return true;
}

/// Every model, one after the other; returns how many decoded.
inline int decode_with_every_model(const bson_t* document) {
  using namespace fuzz_models;
  return decodes_as<Everything>(document) + decodes_as<Strict>(document) + decodes_as<Sparse>(document) +
         decodes_as<Node>(document) + decodes_as<Tree>(document) + decodes_as<Expr>(document) +
         decodes_as<Category>(document);
}

}  // namespace fuzz_support
