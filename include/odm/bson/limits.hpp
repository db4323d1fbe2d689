#pragma once
// How deep a document may be nested: one limit for decoding, validation, encoding and
// Extended JSON.

#include <cstddef>

namespace odm {

/// The deepest nesting odm reads or writes. A document is level 1 and every document or
/// array inside it adds one, so `{a: {b: [1]}}` is 3 levels deep. Beyond it decoding and
/// `Document::from_bytes` throw odm::DecodeError, encoding throws odm::EncodeError.
///
/// Why 100: it is the limit MongoDB documents for stored documents ("no more than 100
/// levels of nesting", counted the same way), so odm reads every document a server is
/// documented to store and never writes one it would refuse. It also bounds the stack:
/// the decoder and encoder recurse once per level and check the depth before going down,
/// and everything that walks data of unknown depth (validation, the skipped fields of a
/// model, the checks before Extended JSON) does so with a loop, not recursion, so no input
/// can exhaust the stack, even on a thread with a small one.
inline constexpr std::size_t max_depth = 100;

}  // namespace odm
