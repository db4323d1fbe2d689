#pragma once
// Strict UTF-8 validation (RFC 3629): no overlong forms (so no "modified UTF-8" NUL as
// C0 80, which libbson's bson_utf8_validate accepts), no UTF-16 surrogates, nothing
// above U+10FFFF. Embedded NUL bytes are allowed: BSON string values are length-prefixed.

#include <odm/model/utf8_sequence.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace odm::detail {

/// Whether every byte of the text is ASCII: whole 8-byte words, then the last 8 (or 4, 2,
/// 1) bytes read once more, overlapping, instead of a byte-by-byte tail. Most stored text
/// is ASCII, so this decides most strings (issue 11: the tails of short strings were most
/// of the cost of validating a document's text).
inline bool is_ascii(const unsigned char* s, std::size_t length) noexcept {
  if (length >= 8) {
    std::uint64_t bits = 0;
    std::uint64_t word;
    for (std::size_t i = 0; i + 8 <= length; i += 8) {
      std::memcpy(&word, s + i, 8);
      bits |= word;
    }
    std::memcpy(&word, s + length - 8, 8);
    return ((bits | word) & 0x8080808080808080ull) == 0;
  }
  if (length >= 4) {
    std::uint32_t first;
    std::uint32_t last;
    std::memcpy(&first, s, 4);
    std::memcpy(&last, s + length - 4, 4);
    return ((first | last) & 0x80808080u) == 0;
  }
  if (length == 0) return true;
  // 1 to 3 bytes: the first, the middle and the last (some of them the same byte).
  return ((s[0] | s[length / 2] | s[length - 1]) & 0x80u) == 0;
}

inline bool is_valid_utf8(const char* text, std::size_t length) noexcept {
  const auto* s = reinterpret_cast<const unsigned char*>(text);
  if (is_ascii(s, length)) [[likely]]
    return true;
  std::size_t i = 0;
  while (i < length) {
    // ASCII fast path, eight bytes at a time.
    if (i + 8 <= length) {
      std::uint64_t chunk;
      std::memcpy(&chunk, s + i, 8);
      if ((chunk & 0x8080808080808080ull) == 0) {
        i += 8;
        continue;
      }
    }
    const std::size_t sequence = utf8_sequence_length(std::string_view(text, length), i);
    if (sequence == 0) return false;
    i += sequence;
  }
  return true;
}

}  // namespace odm::detail
