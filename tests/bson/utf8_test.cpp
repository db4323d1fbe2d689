// odm's UTF-8 check (odm/bson/utf8.hpp) against the grammar of RFC 3629, section 4, written
// out byte range by byte range: every position of a non-ASCII byte in texts of every
// length around the word sizes the ASCII fast path reads, and random texts mixing ASCII,
// valid sequences and stray bytes (fixed seed, printed on failure).

#include <odm/bson/utf8.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>

namespace bson_utf8_test {

/// RFC 3629's UTF8-octets rule, one range of lead byte at a time.
bool rfc3629(const std::string& text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  std::size_t i = 0;
  const auto in = [&](std::size_t at, unsigned lo, unsigned hi) { return at < n && s[at] >= lo && s[at] <= hi; };
  while (i < n) {
    const unsigned c = s[i];
    if (c <= 0x7F) {
      i += 1;
    } else if (c >= 0xC2 && c <= 0xDF) {
      if (!in(i + 1, 0x80, 0xBF)) return false;
      i += 2;
    } else if (c == 0xE0) {
      if (!in(i + 1, 0xA0, 0xBF) || !in(i + 2, 0x80, 0xBF)) return false;
      i += 3;
    } else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) {
      if (!in(i + 1, 0x80, 0xBF) || !in(i + 2, 0x80, 0xBF)) return false;
      i += 3;
    } else if (c == 0xED) {
      if (!in(i + 1, 0x80, 0x9F) || !in(i + 2, 0x80, 0xBF)) return false;
      i += 3;
    } else if (c == 0xF0) {
      if (!in(i + 1, 0x90, 0xBF) || !in(i + 2, 0x80, 0xBF) || !in(i + 3, 0x80, 0xBF)) return false;
      i += 4;
    } else if (c >= 0xF1 && c <= 0xF3) {
      if (!in(i + 1, 0x80, 0xBF) || !in(i + 2, 0x80, 0xBF) || !in(i + 3, 0x80, 0xBF)) return false;
      i += 4;
    } else if (c == 0xF4) {
      if (!in(i + 1, 0x80, 0x8F) || !in(i + 2, 0x80, 0xBF) || !in(i + 3, 0x80, 0xBF)) return false;
      i += 4;
    } else {
      return false;
    }
  }
  return true;
}

bool odm_says(const std::string& text) { return odm::detail::is_valid_utf8(text.data(), text.size()); }

TEST(Utf8, AsciiOfEveryLengthIsValid) {
  for (std::size_t length = 0; length <= 40; ++length) {
    std::string text(length, 'a');
    for (std::size_t i = 0; i < length; ++i) text[i] = static_cast<char>('!' + i % 90);
    EXPECT_TRUE(odm_says(text)) << "length " << length;
    EXPECT_TRUE(odm_says(std::string(length, '\0'))) << "NULs, length " << length;  // allowed in values
  }
}

TEST(Utf8, AStrayByteIsFoundAtEveryPositionOfEveryLength) {
  for (std::size_t length = 1; length <= 40; ++length) {
    for (std::size_t at = 0; at < length; ++at) {
      for (const unsigned byte : {0x80u, 0xBFu, 0xC0u, 0xC3u, 0xE2u, 0xF0u, 0xF8u, 0xFFu}) {
        std::string text(length, 'x');
        text[at] = static_cast<char>(byte);
        EXPECT_FALSE(odm_says(text)) << "byte " << byte << " at " << at << " of " << length;
      }
    }
  }
}

TEST(Utf8, AValidSequenceIsAcceptedAtEveryPosition) {
  for (const std::string sequence : {"\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\xED\x9F\xBF", "\xF4\x8F\xBF\xBF"}) {
    for (std::size_t before = 0; before <= 17; ++before) {
      for (std::size_t after = 0; after <= 9; ++after) {
        const std::string text = std::string(before, 'a') + sequence + std::string(after, 'b');
        EXPECT_TRUE(odm_says(text)) << before << " + sequence + " << after;
        // Cut short by one byte: refused.
        EXPECT_FALSE(odm_says(std::string(before, 'a') + sequence.substr(0, sequence.size() - 1))) << before;
      }
    }
  }
}

TEST(Utf8, RandomTextsAgreeWithRfc3629) {
  const std::uint32_t seed = 20261124;
  std::mt19937 random(seed);
  const std::string pieces[] = {"\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\xED\xA0\x80" /* surrogate */,
                                "\xC0\xAF" /* overlong */, "\xF4\x90\x80\x80" /* above U+10FFFF */,
                                "\xE0\x9F\xBF" /* overlong */, "\xF0\x8F\xBF\xBF" /* overlong */};
  std::size_t valid = 0;
  for (int round = 0; round < 100'000; ++round) {
    std::string text;
    const std::size_t parts = random() % 24;
    for (std::size_t p = 0; p < parts; ++p) {
      switch (random() % 8) {
        case 0: text += pieces[random() % std::size(pieces)]; break;
        case 1: text += static_cast<char>(random() % 256); break;
        default: text += static_cast<char>(' ' + random() % 95); break;
      }
    }
    const bool expected = rfc3629(text);
    valid += expected;
    ASSERT_EQ(odm_says(text), expected) << "seed " << seed << ", round " << round << ", " << text.size() << " bytes";
  }
  // Both outcomes were exercised.
  EXPECT_GT(valid, 10'000u);
  EXPECT_LT(valid, 90'000u);
}

}  // namespace bson_utf8_test
