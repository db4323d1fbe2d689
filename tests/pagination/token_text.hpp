#pragma once
// A page token's text taken apart and put together again, as a client holding one could:
// the tests forge tokens to check what odm does with them.

#include <odm/odm.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pagination_test {

inline std::string base64url(const std::vector<std::uint8_t>& bytes) {
  static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string text;
  std::uint32_t group = 0;
  int bits = 0;
  for (std::uint8_t byte : bytes) {
    group = (group << 8) | byte;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      text.push_back(digits[(group >> bits) & 63]);
    }
  }
  if (bits > 0) text.push_back(digits[(group << (6 - bits)) & 63]);
  return text;
}

inline std::vector<std::uint8_t> bytes_of(std::string_view text) {
  const std::string_view digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::vector<std::uint8_t> bytes;
  std::uint32_t group = 0;
  int bits = 0;
  for (char c : text) {
    group = (group << 6) | static_cast<std::uint32_t>(digits.find(c));
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes.push_back(static_cast<std::uint8_t>(group >> bits));
      group &= (1u << bits) - 1;
    }
  }
  return bytes;
}

/// The token's contents as stored in its text (the format is odm's own: see page.cpp).
inline odm::Document contents_of(const odm::PageToken& token) { return odm::Document::from_bytes(bytes_of(token.str())); }

/// The text of a token holding `contents`.
inline std::string text_of(const odm::Document& contents) {
  const auto bytes = contents.bytes();
  return base64url(std::vector<std::uint8_t>(bytes.begin(), bytes.end()));
}

}  // namespace pagination_test
