// odm::PageToken's text: what str() makes parse() reads back, and any other text, hostile
// or damaged, is an odm::ValueError that says what is wrong, never a crash or a token
// (the pages themselves are tested against servers: page_itest.cpp).

#include "pagination/token_text.hpp"

#include <odm/odm.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

using pagination_test::base64url;
using pagination_test::text_of;

std::string refusal(std::string_view text) {
  try {
    odm::PageToken::parse(text);
  } catch (const odm::ValueError& error) {
    return error.what();
  }
  return "";
}

TEST(PageToken, TextThatIsNoTokenIsAValueErrorSayingWhy) {
  EXPECT_NE(refusal("").find("no BSON document"), std::string::npos) << refusal("");
  EXPECT_NE(refusal("abc$").find("character 3 is no URL-safe base64 digit"), std::string::npos);
  EXPECT_NE(refusal("abcde").find("length, 5"), std::string::npos);
  EXPECT_NE(refusal("ab+/").find("character 2"), std::string::npos) << "standard base64 is not URL-safe";
  EXPECT_NE(refusal(std::string(odm::PageToken::max_text_size + 1, 'A')).find("max_text_size"), std::string::npos);
  // Well-formed BSON that is no token.
  EXPECT_NE(refusal(text_of(odm::Document::from_json(R"({"a": 1})"))).find("no version"), std::string::npos);
  EXPECT_NE(refusal(text_of(odm::Document::from_json(R"({"v": 2, "q": 1, "s": [], "k": []})"))).find("no version"),
            std::string::npos);
  EXPECT_NE(refusal(text_of(odm::Document::from_json(R"({"v": 1, "s": [], "k": []})"))).find("lacks its field q"),
            std::string::npos);
  // Bytes that are no document: a length prefix that lies, and a truncated document.
  EXPECT_NE(refusal(base64url({200, 0, 0, 0, 0})).find("no BSON document"), std::string::npos);
  const auto whole = odm::Document::from_json(R"({"v": 1, "q": {"$numberLong": "1"}, "s": ["+_id"], "k": [1]})");
  std::vector<std::uint8_t> cut(whole.bytes().begin(), whole.bytes().end() - 3);
  EXPECT_NE(refusal(base64url(cut)).find("no BSON document"), std::string::npos);
  // Every refusal tells the caller what to do.
  EXPECT_NE(refusal("abc$").find("pass back the text of a Page's next token"), std::string::npos);
}

TEST(PageToken, ATokensTextReadsBackAsTheSameToken) {
  const auto contents =
      odm::Document::from_json(R"({"v": 1, "q": {"$numberLong": "-5"}, "s": ["+price", "+_id"], "k": [7, 12]})");
  const odm::PageToken token = odm::PageToken::parse(text_of(contents));
  const std::string text = token.str();
  EXPECT_EQ(text, text_of(contents));
  EXPECT_EQ(odm::PageToken::parse(text), token);
  for (char c : text) EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') << text;
  // A change of one character is another token or none.
  std::string changed = text;
  changed[changed.size() / 2] = changed[changed.size() / 2] == 'A' ? 'B' : 'A';
  try {
    EXPECT_FALSE(odm::PageToken::parse(changed) == token);
  } catch (const odm::ValueError&) {
  }
}

// Random texts, and random damage to a token's text: each is a token or a ValueError.
TEST(PageToken, RandomTextIsATokenOrAValueError) {
  const std::uint32_t seed = 20261204;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 random(seed);
  const std::string valid =
      text_of(odm::Document::from_json(R"({"v": 1, "q": {"$numberLong": "9"}, "s": ["-a.b", "+_id"], "k": ["x", 3]})"));
  const std::string digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  for (int round = 0; round < 4000; ++round) {
    std::string text;
    if (round % 2 == 0) {
      const std::size_t length = random() % 64;
      for (std::size_t i = 0; i < length; ++i) text.push_back(digits[random() % digits.size()]);
    } else {
      text = valid;
      for (int edits = 1 + static_cast<int>(random() % 3); edits > 0; --edits)
        text[random() % text.size()] = digits[random() % digits.size()];
    }
    try {
      (void)odm::PageToken::parse(text).str();
    } catch (const odm::ValueError&) {
    }
  }
}

}  // namespace
