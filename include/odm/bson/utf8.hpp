#pragma once
// Strict UTF-8 validation (RFC 3629): no overlong forms (so no "modified UTF-8" NUL as
// C0 80, which libbson's bson_utf8_validate accepts), no UTF-16 surrogates, nothing
// above U+10FFFF. Embedded NUL bytes are allowed: BSON string values are length-prefixed.

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace odm::detail {

inline bool is_valid_utf8(const char* text, std::size_t length) noexcept {
  const auto* s = reinterpret_cast<const unsigned char*>(text);
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
    const unsigned char c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t extra;
    std::uint32_t min;
    std::uint32_t code;
    if ((c & 0xE0) == 0xC0) {
      extra = 1, min = 0x80, code = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      extra = 2, min = 0x800, code = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      extra = 3, min = 0x10000, code = c & 0x07;
    } else {
      return false;  // a continuation byte first, or 0xF8..0xFF
    }
    if (length - i <= extra) return false;
    for (std::size_t k = 1; k <= extra; ++k) {
      const unsigned char next = s[i + k];
      if ((next & 0xC0) != 0x80) return false;
      code = (code << 6) | (next & 0x3F);
    }
    if (code < min || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return false;
    i += extra + 1;
  }
  return true;
}

}  // namespace odm::detail
