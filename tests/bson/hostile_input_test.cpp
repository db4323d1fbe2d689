// An adversary's cases against the README's promises for decoding (Decoding, Nesting,
// Bounded errors, Extended JSON) and encoding: every recursive shape a model can have
// (variants, maps, optionals, Embedded) at, just below and just above odm::max_depth, on a
// 256 KiB stack; bad UTF-8 and corrupt lengths where a model does not look; messages that
// stay short whatever the input; far dates; keys MongoDB would refuse.

#include "bson/hostile_support.hpp"
#include "bson/thrown.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace bson_hostile_input_test {

using odm_hostile::append_cstring;
using odm_hostile::append_int32;
using odm_hostile::append_string;
using odm_hostile::Bytes;
using odm_hostile::code_with_scope_value;
using odm_hostile::nested_bson;
using odm_hostile::RawDocument;
using odm_hostile::run_with_stack;
using odm_hostile::string_value;

constexpr std::string_view kTooDeep = "nested deeper than 100 levels of documents and arrays";
constexpr std::size_t kMessageLimit = 2048;
constexpr std::size_t kSmallStack = 256 * 1024;

// ---- recursive models of every shape -----------------------------------------------

/// A variant whose recursive alternative is an array of itself.
struct VNode {
  std::variant<std::int32_t, std::vector<VNode>> v;
};
/// A map of itself.
struct MNode {
  std::map<std::string, MNode> m;
};
/// An optional array of itself.
struct ONode {
  std::optional<std::vector<ONode>> next;
};
/// Embedded children.
struct ENode {
  std::vector<odm::Embedded<ENode>> kids;
};
/// The issue's expression tree: two alternatives that both recurse. Scaled comes before
/// Sum: a Scaled document also has every field Sum requires, and the first alternative
/// whose shape fits is the one decoded (README, "Variants").
struct Expr;
struct Leaf {
  std::int32_t value = 0;
};
struct Sum {
  std::vector<Expr> terms;
};
struct Scaled {
  std::int32_t factor = 0;
  std::vector<Expr> terms;
};
struct Expr {
  std::variant<Leaf, Scaled, Sum> node;
};

/// A model that declares nothing the deep inputs hold.
struct Shallow {
  std::optional<std::int32_t> n;
};

std::span<const std::uint8_t> span_of(const Bytes& bytes) { return {bytes.data(), bytes.size()}; }

Bytes int32_element(std::string_view key, std::int32_t value) {
  Bytes out{0x10};
  append_cstring(out, key);
  append_int32(out, value);
  return out;
}

/// `levels` deep, alternating a document (odd levels) holding `doc_key` and an array
/// (even levels) holding "0"; the innermost level holds `innermost`.
Bytes alternating(std::size_t levels, std::string doc_key, const Bytes& innermost) {
  return nested_bson(levels, [doc_key](std::size_t level) { return level % 2 == 1 ? doc_key : std::string("0"); },
                     [](std::size_t level) { return level % 2 == 0; }, innermost);
}
/// The same with documents at every level: a map of maps, keys alternating `a` and `b`.
Bytes documents(std::size_t levels, std::string a, std::string b, const Bytes& innermost = {}) {
  return nested_bson(levels, [a, b](std::size_t level) { return level % 2 == 1 ? a : b; },
                     [](std::size_t) { return false; }, innermost);
}

/// Every way a recursive model reaches level `levels`: the BSON of a chain that deep,
/// for each model (the innermost level is what that model accepts there).
struct DeepInputs {
  Bytes vnode, mnode, onode, enode, expr;
};
DeepInputs deep_inputs(std::size_t levels) {
  DeepInputs in;
  // Odd levels are documents, even levels arrays (or the map's document).
  const bool ends_in_array = levels % 2 == 0;
  in.vnode = alternating(levels, "v", ends_in_array ? Bytes{} : int32_element("v", 1));
  in.mnode = documents(levels, "m", "k");
  in.onode = alternating(levels, "next", {});
  in.enode = alternating(levels, "kids", {});
  // Expr: {node: {terms: [{node: {terms: [...]}}]}}: levels go doc(Expr), doc(Sum),
  // array(terms), doc(Expr) ... The innermost is a Sum with no terms or an empty array.
  in.expr = nested_bson(
      levels,
      [](std::size_t level) {
        switch (level % 3) {
          case 1: return std::string("node");
          case 2: return std::string("terms");
          default: return std::string("0");
        }
      },
      [](std::size_t level) { return level % 3 == 0; },
      levels % 3 == 2 ? [] {
        Bytes terms{0x04};
        append_cstring(terms, "terms");
        append_int32(terms, 5);
        terms.push_back(0);
        return terms;
      }()
                      : Bytes{});
  return in;
}

void expect_all_decode(std::size_t levels) {
  SCOPED_TRACE("levels " + std::to_string(levels));
  const DeepInputs in = deep_inputs(levels);
  EXPECT_NO_THROW((void)odm::from_bson<VNode>(span_of(in.vnode)));
  EXPECT_NO_THROW((void)odm::from_bson<ONode>(span_of(in.onode)));
  // A map or vector member is required: those chains end in an empty map or array, at an
  // even level.
  if (levels % 2 == 0) {
    EXPECT_NO_THROW((void)odm::from_bson<MNode>(span_of(in.mnode)));
    EXPECT_NO_THROW((void)odm::from_bson<ENode>(span_of(in.enode)));
  }
  // An Expr chain ends in a Sum document (level % 3 == 2) or its empty terms array.
  if (levels % 3 != 1) {
    EXPECT_NO_THROW((void)odm::from_bson<Expr>(span_of(in.expr)));
  }
  for (const Bytes* bytes : {&in.vnode, &in.mnode, &in.onode, &in.enode, &in.expr})
    EXPECT_NO_THROW((void)odm::Document::from_bytes(*bytes));
}

template <class T>
void expect_too_deep(const Bytes& bytes, const char* model) {
  SCOPED_TRACE(model);
  const auto e = odm_test::thrown<odm::DecodeError>([&] { (void)odm::from_bson<T>(span_of(bytes)); });
  EXPECT_NE(e.reason().find(kTooDeep), std::string::npos) << e.what();
  EXPECT_LT(std::string_view(e.what()).size(), kMessageLimit);
  EXPECT_LE(e.depth(), 100u);
}

void expect_all_refuse(std::size_t levels) {
  SCOPED_TRACE("levels " + std::to_string(levels));
  const DeepInputs in = deep_inputs(levels);
  expect_too_deep<VNode>(in.vnode, "VNode");
  expect_too_deep<MNode>(in.mnode, "MNode");
  expect_too_deep<ONode>(in.onode, "ONode");
  expect_too_deep<ENode>(in.enode, "ENode");
  expect_too_deep<Expr>(in.expr, "Expr");
  expect_too_deep<Shallow>(in.expr, "Shallow (the deep field is skipped)");
  for (const Bytes* bytes : {&in.vnode, &in.mnode, &in.onode, &in.enode, &in.expr}) {
    const auto e = odm_test::thrown<odm::DecodeError>([&] { (void)odm::Document::from_bytes(*bytes); });
    EXPECT_NE(e.reason().find(kTooDeep), std::string::npos) << e.what();
  }
}

TEST(HostileNesting, EveryRecursiveShapeDecodesAtTheLimitAndJustBelow) {
  expect_all_decode(99);
  expect_all_decode(100);
  expect_all_decode(98);
}

TEST(HostileNesting, EveryRecursiveShapeIsRefusedJustAboveTheLimitAndFarAbove) {
  for (const std::size_t levels : {101u, 102u, 103u, 5000u, 50000u}) expect_all_refuse(levels);
}

TEST(HostileNesting, OnA256KiBStackEveryShapeDecodesAtTheLimitAndRefusesDeeper) {
  run_with_stack(kSmallStack, [] {
    expect_all_decode(100);
    expect_all_decode(99);
    expect_all_refuse(101);
    expect_all_refuse(50000);
  });
}

TEST(HostileNesting, OnA256KiBStackEncodingAtTheLimitWorksAndDeeperIsRefused) {
  run_with_stack(kSmallStack, [] {
    for (const std::size_t levels : {99u, 100u}) {
      const DeepInputs in = deep_inputs(levels);
      const VNode v = odm::from_bson<VNode>(span_of(in.vnode));
      EXPECT_EQ(odm::to_bson(v).size(), in.vnode.size());
      if (levels % 2 == 1) continue;
      const MNode m = odm::from_bson<MNode>(span_of(in.mnode));
      EXPECT_EQ(odm::to_bson(m).size(), in.mnode.size());
      const ENode en = odm::from_bson<ENode>(span_of(in.enode));
      EXPECT_EQ(odm::to_bson(en).size(), in.enode.size());
    }
    // One more level, added in C++: the encoder refuses it.
    MNode m = odm::from_bson<MNode>(span_of(deep_inputs(100).mnode));
    MNode* at = &m;
    while (!at->m.empty()) at = &at->m.begin()->second;
    at->m["k"] = MNode{};
    const auto e = odm_test::thrown<odm::EncodeError>([&] { (void)odm::to_bson(m); });
    EXPECT_NE(e.reason().find(kTooDeep), std::string::npos) << e.what();
    EXPECT_LT(std::string_view(e.what()).size(), kMessageLimit);
  });
}

/// Deep JSON through from_json, for each model, and Document's round trip at the limit of
/// the JSON reader.
TEST(HostileNesting, JsonAtAndPastTheReadersLimit) {
  // `levels` objects, the innermost holding a number.
  const auto json_of = [](std::size_t levels) {
    std::string text;
    for (std::size_t i = 0; i < levels; ++i) text += "{\"m\": ";
    text += "1";
    text.append(levels, '}');
    return text;
  };
  // 98 levels of objects: read; a model that skips them checks them.
  EXPECT_NO_THROW((void)odm::from_json<Shallow>(json_of(98)));
  // Past the reader's limit, and far past it: a JsonError that says so, never a crash.
  for (const std::size_t levels : {99u, 100u, 101u, 1000u, 200000u}) {
    const auto e = odm_test::thrown<odm::JsonError>([&] { (void)odm::from_json<MNode>(json_of(levels)); });
    EXPECT_NE(std::string_view(e.what()).find("nested deeper than"), std::string::npos) << e.what();
  }
  // Arrays count too; run on a small stack.
  run_with_stack(kSmallStack, [] {
    std::string text = "{\"a\": ";
    text.append(100000, '[');
    text.append(100000, ']');
    text += "}";
    EXPECT_THROW((void)odm::Document::from_json(text), odm::JsonError);
  });
}

TEST(HostileNesting, ADocumentAtTheLimitPrintsOrIsRefusedNamingTheReadersLimit) {
  // 98 levels of plain documents print and read back; 99 and 100 (valid BSON that odm
  // stores) are an EncodeError from to_json that names the JSON reader's limit.
  const odm::Document at98 = odm::Document::from_bytes(documents(98, "a", "b"));
  EXPECT_EQ(odm::Document::from_json(at98.to_json()), at98);
  EXPECT_EQ(odm::Document::from_json(at98.to_canonical_json()), at98);
  for (const std::size_t levels : {99u, 100u}) {
    const odm::Document deep = odm::Document::from_bytes(documents(levels, "a", "b"));
    const auto e = odm_test::thrown<odm::EncodeError>([&] { (void)deep.to_json(); });
    EXPECT_NE(e.reason().find("98 levels of JSON"), std::string::npos) << e.what();
  }
  // A date in the document at level 98 is printed {"$date": ...}, one JSON level more
  // than the reader accepts: refused; in the document at level 97 it reads back.
  Bytes date{0x09};
  append_cstring(date, "d");
  for (int i = 0; i < 8; ++i) date.push_back(0);
  EXPECT_THROW((void)odm::Document::from_bytes(documents(98, "a", "b", date)).to_json(), odm::EncodeError);
  const odm::Document at97 = odm::Document::from_bytes(documents(97, "a", "b", date));
  EXPECT_EQ(odm::Document::from_json(at97.to_json()), at97);
}

// ---- linear time, bounded messages --------------------------------------------------

TEST(HostileTime, AWideAndDeepExpressionTreeDecodesInLinearTime) {
  // 40,000 leaves under 30 levels of alternating Sum/Scaled: every alternative recursive.
  // Exponential decoding would not finish; linear decoding takes milliseconds. The bound
  // is generous (a slow sanitizer build on a busy machine).
  Expr tree{Leaf{1}};
  for (int level = 0; level < 30; ++level) {
    std::vector<Expr> terms(level == 0 ? 40000 : 1, tree);
    if (level % 2 == 0)
      tree = Expr{Sum{std::move(terms)}};
    else
      tree = Expr{Scaled{level, std::move(terms)}};
  }
  const odm::Document bson = odm::to_bson(tree);
  const auto start = std::chrono::steady_clock::now();
  const Expr back = odm::from_bson<Expr>(bson);
  const auto json_back = odm::from_json<Expr>(bson.to_json());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  EXPECT_EQ(odm::to_bson(back), bson);
  EXPECT_EQ(odm::to_bson(json_back), bson);
}

TEST(HostileTime, AnErrorAtTheBottomOfADeepVariantTreeIsShortAndNamesTheBottom) {
  // 33 Expr levels (99 BSON levels) whose innermost Leaf holds a string: the error names
  // the innermost field, says what it expected, and stays short.
  Bytes leaf{0x02};
  append_cstring(leaf, "value");
  append_string(leaf, "x");
  // Expr doc, Leaf doc: the innermost two levels; above them Sum/terms/Expr triples.
  Bytes bytes = nested_bson(
      98,
      [](std::size_t level) {
        switch (level % 3) {
          case 1: return std::string("node");
          case 2: return std::string("terms");
          default: return std::string("0");
        }
      },
      [](std::size_t level) { return level % 3 == 0; }, leaf);
  const auto e = odm_test::thrown<odm::DecodeError>([&] { (void)odm::from_bson<Expr>(span_of(bytes)); });
  EXPECT_LT(std::string_view(e.what()).size(), kMessageLimit);
  const std::string what = e.what();
  EXPECT_NE(what.find("node.terms.0.node"), std::string::npos) << what;
  // The innermost Leaf/Sum/Scaled choice: none fits a document whose only field is a string.
  EXPECT_NE(what.find("none of the variant's 3 alternatives"), std::string::npos) << what;
  EXPECT_NE(what.find("value: expected int"), std::string::npos) << what;
}

struct Strict {
  std::int32_t n = 0;
  struct odm_model {
    static constexpr bool strict = true;
  };
};
enum class Colour { red, green };
struct Painted {
  Colour colour = Colour::red;
};
struct Legacy {
  odm::DecimalFromLegacy<100> price;
};
struct Counts {
  std::map<std::string, std::int32_t> counts;
};
struct Choice {
  std::variant<Strict, std::string> pick;
};

TEST(HostileMessages, UserDataInAMessageIsCutHoweverLongItIs) {
  const std::string huge(1 << 20, 'k');
  const std::string bad_utf8 = std::string(1 << 20, 'x') + "\xff";
  // A map key from the input, with a value of the wrong type.
  {
    const Bytes bytes = RawDocument().document("counts", RawDocument().string(huge, "s").bytes()).bytes();
    const auto e = odm_test::thrown<odm::DecodeError>([&] { (void)odm::from_bson<Counts>(span_of(bytes)); });
    EXPECT_LT(std::string_view(e.what()).size(), kMessageLimit);
    EXPECT_EQ(e.path(), "counts." + huge);  // path() is whole
  }
  // An unknown field of a strict model.
  {
    const Bytes bytes = RawDocument().int32("n", 1).int32(huge, 2).bytes();
    const auto e = odm_test::thrown<odm::DecodeError>([&] { (void)odm::from_bson<Strict>(span_of(bytes)); });
    EXPECT_LT(std::string_view(e.what()).size(), kMessageLimit);
  }
  // A skipped field with a problem deep inside, under long keys at every level.
  {
    const Bytes bytes = nested_bson(
        90, [&](std::size_t) { return huge.substr(0, 100000); }, [](std::size_t) { return false; },
        [&] {
          Bytes element{0x02};
          append_cstring(element, "s");
          append_string(element, bad_utf8);
          return element;
        }());
    const auto e = odm_test::thrown<odm::DecodeError>([&] { (void)odm::from_bson<Shallow>(span_of(bytes)); });
    EXPECT_LT(std::string_view(e.what()).size(), kMessageLimit);
    EXPECT_NE(e.reason().find("UTF-8"), std::string::npos) << e.what();
    const auto from_bytes = odm_test::thrown<odm::DecodeError>([&] { (void)odm::Document::from_bytes(bytes); });
    EXPECT_LT(std::string_view(from_bytes.what()).size(), kMessageLimit);
  }
  // An enum name, a legacy decimal string, a strict struct in a variant.
  {
    const Bytes bytes = RawDocument().string("colour", huge).bytes();
    const auto e = odm_test::thrown<odm::DecodeError>([&] { (void)odm::from_bson<Painted>(span_of(bytes)); });
    EXPECT_LT(std::string_view(e.what()).size(), kMessageLimit);
  }
  {
    const Bytes bytes = RawDocument().string("price", huge).bytes();
    const auto e = odm_test::thrown<odm::DecodeError>([&] { (void)odm::from_bson<Legacy>(span_of(bytes)); });
    EXPECT_LT(std::string_view(e.what()).size(), kMessageLimit);
  }
  {
    const Bytes bytes = RawDocument().document("pick", RawDocument().int32("n", 1).int32(huge, 1).bytes()).bytes();
    const auto e = odm_test::thrown<odm::DecodeError>([&] { (void)odm::from_bson<Choice>(span_of(bytes)); });
    EXPECT_LT(std::string_view(e.what()).size(), kMessageLimit);
  }
  // Encoding: a long map key that MongoDB would refuse.
  {
    Counts counts;
    counts.counts["$" + huge] = 1;
    const auto e = odm_test::thrown<odm::EncodeError>([&] { (void)odm::to_bson(counts); });
    EXPECT_LT(std::string_view(e.what()).size(), kMessageLimit);
  }
}

// ---- the whole input is checked ------------------------------------------------------


struct Holder {
  std::vector<Shallow> items;
};

TEST(HostileValidation, BadUtf8InEveryStringLikeTypeDeepInsideWhatAModelSkips) {
  constexpr std::string_view bad = "a\xc3(b";  // a truncated two-byte sequence
  Bytes regex_pattern;
  append_cstring(regex_pattern, bad);
  append_cstring(regex_pattern, "i");
  Bytes regex_options;
  append_cstring(regex_options, "a");
  append_cstring(regex_options, bad);
  Bytes dbpointer = string_value(bad);
  dbpointer.insert(dbpointer.end(), 12, 1);
  const std::vector<std::pair<std::uint8_t, Bytes>> values = {
      {0x0D, string_value(bad)},  // code
      {0x0E, string_value(bad)},  // symbol
      {0x0B, regex_pattern},
      {0x0B, regex_options},
      {0x0C, dbpointer},
      {0x0F, code_with_scope_value(bad, RawDocument().bytes())},
      {0x0F, code_with_scope_value("f()", RawDocument().string("s", bad).bytes())},
      {0x0F, code_with_scope_value("f()", RawDocument().int32(bad, 1).bytes())},
  };
  for (std::size_t i = 0; i < values.size(); ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    // items: [{n: 1, junk: [ {x: <bad>} ]}]: inside an array, inside a declared vector of
    // structs, in a field the struct does not declare.
    const Bytes inner = RawDocument().element(values[i].first, "x", values[i].second).bytes();
    Bytes junk_array = RawDocument().document("0", inner).bytes();
    const Bytes item = RawDocument().int32("n", 1).document("junk", junk_array, 0x04).bytes();
    const Bytes bytes = RawDocument().document("items", RawDocument().document("0", item).bytes(), 0x04).bytes();
    const auto e = odm_test::thrown<odm::DecodeError>([&] { (void)odm::from_bson<Holder>(span_of(bytes)); });
    EXPECT_EQ(e.path().substr(0, 16), "items.0.junk.0.x") << e.what();
    EXPECT_NE(e.reason().find("UTF-8"), std::string::npos) << e.what();
    const auto raw = odm_test::thrown<odm::DecodeError>([&] { (void)odm::Document::from_bytes(bytes); });
    EXPECT_NE(raw.reason().find("UTF-8"), std::string::npos) << raw.what();
  }
}

TEST(HostileValidation, CorruptLengthsInFieldsTheModelDoesNotDeclare) {
  const Bytes good = RawDocument().int32("n", 1).string("other", "text").bytes();
  ASSERT_NO_THROW((void)odm::from_bson<Shallow>(span_of(good)));
  std::vector<Bytes> corrupt;
  // The string "other": its length (at byte 4 + 1 + 2 + 4 + 1 + 6 = 18) set to values that
  // lie: too long by one, huge, zero, negative.
  for (const std::int64_t length : {6ll, 0x7FFFFFFFll, 0ll, -1ll}) {
    Bytes bytes = good;
    Bytes field;
    append_int32(field, length);
    std::copy(field.begin(), field.end(), bytes.begin() + 18);
    corrupt.push_back(bytes);
  }
  // A nested document whose length prefix says more than it holds, and one whose bytes
  // after its terminator hide another field.
  {
    Bytes inner = RawDocument().int32("a", 1).bytes();
    inner[0] = static_cast<std::uint8_t>(inner[0] + 8);
    for (const int b : {0x10, int{'h'}, 0, 1, 0, 0, 0, 0}) inner.push_back(static_cast<std::uint8_t>(b));
    corrupt.push_back(RawDocument().int32("n", 1).document("sub", inner).bytes());
  }
  // Binary data of a declared length of 2 GiB.
  {
    Bytes binary;
    append_int32(binary, 0x7FFFFFFF);
    binary.push_back(0);
    binary.push_back(1);
    corrupt.push_back(RawDocument().element(0x05, "bin", binary).int32("n", 1).bytes());
  }
  // Code with scope whose total length disagrees with its parts.
  {
    Bytes cws = code_with_scope_value("f()", RawDocument().bytes());
    cws[0] = static_cast<std::uint8_t>(cws[0] - 2);
    corrupt.push_back(RawDocument().element(0x0F, "code", cws).int32("n", 1).bytes());
  }
  // An unknown type byte.
  corrupt.push_back(RawDocument().element(0x42, "x", {1, 2, 3, 4}).int32("n", 1).bytes());
  for (std::size_t i = 0; i < corrupt.size(); ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    EXPECT_THROW((void)odm::from_bson<Shallow>(span_of(corrupt[i])), odm::DecodeError);
    EXPECT_THROW((void)odm::Document::from_bytes(corrupt[i]), odm::DecodeError);
  }
  // The whole document's length prefix: 2 GiB declared, ten bytes given.
  Bytes lying = good;
  lying[0] = 0xFF;
  lying[1] = 0xFF;
  lying[2] = 0xFF;
  lying[3] = 0x7F;
  EXPECT_THROW((void)odm::from_bson<Shallow>(span_of(lying)), odm::DecodeError);
  EXPECT_THROW((void)odm::Document::from_bytes(lying), odm::DecodeError);
}

// ---- Extended JSON round trip -------------------------------------------------------

struct When {
  std::chrono::system_clock::time_point at;
};
using Millis = std::chrono::time_point<std::chrono::system_clock, std::chrono::milliseconds>;
struct WhenMs {
  Millis at;
};
struct WhenSeconds {
  std::chrono::sys_seconds at;
};

TEST(HostileJson, DatesFarBeforeYearZeroAndFarAfter9999ReadBack) {
  for (const std::int64_t ms : {std::int64_t{INT64_MIN}, std::int64_t{INT64_MAX}, std::int64_t{-62167219200001},
                                std::int64_t{-62167219200000}, std::int64_t{253402300800000},
                                std::int64_t{253402300799999}, std::int64_t{-1}, std::int64_t{0}}) {
    SCOPED_TRACE(ms);
    odm::Document doc;
    bson_append_date_time(doc.get_mutable(), "d", 1, ms);
    EXPECT_EQ(odm::Document::from_json(doc.to_json()), doc) << doc.to_json();
    EXPECT_EQ(odm::Document::from_json(doc.to_canonical_json()), doc);
    // A millisecond time point holds every BSON date, and reads it back.
    odm::Document stored;
    bson_append_date_time(stored.get_mutable(), "at", 2, ms);
    const WhenMs when = odm::from_bson<WhenMs>(stored);
    EXPECT_EQ(when.at.time_since_epoch().count(), ms);
    EXPECT_EQ(odm::to_bson(when), stored);
  }
  // system_clock's nanoseconds hold years 1677-2262 only: outside, a DecodeError.
  odm::Document far;
  bson_append_date_time(far.get_mutable(), "at", 2, 253402300800000);
  EXPECT_THROW((void)odm::from_bson<When>(far), odm::DecodeError);
}

TEST(HostileJson, ATimePointBeyondWhatBsonHoldsIsAnEncodeError) {
  // sys_seconds reach 292 billion years; BSON's milliseconds 292 million.
  const WhenSeconds far{std::chrono::sys_seconds(std::chrono::seconds(INT64_MAX / 10))};
  const auto e = odm_test::thrown<odm::EncodeError>([&] { (void)odm::to_bson(far); });
  EXPECT_EQ(e.path(), "at");
  const WhenSeconds early{std::chrono::sys_seconds(std::chrono::seconds(INT64_MIN / 10))};
  EXPECT_THROW((void)odm::to_bson(early), odm::EncodeError);
  // The edges that fit are kept exactly.
  const WhenSeconds last{std::chrono::sys_seconds(std::chrono::seconds(INT64_MAX / 1000))};
  EXPECT_EQ(odm::from_bson<WhenSeconds>(odm::to_bson(last)).at, last.at);
}

TEST(HostileJson, TypeWrapperNamesAtTheTopLevelAndInAScopeReadBackOrAreRefused) {
  // A document's own first key may be "$numberLong", "$date", ...; printed, it must read
  // back as the same document or be refused (README: to_json round-trips through from_json).
  const auto check = [](const odm::Document& doc) {
    std::string json;
    try {
      json = doc.to_json();
    } catch (const odm::EncodeError&) {
      return;  // refused: allowed
    }
    std::optional<odm::Document> back;
    try {
      back = odm::Document::from_json(json);
    } catch (const odm::JsonError& e) {
      ADD_FAILURE() << json << " is printed but does not read back: " << e.what();
      return;
    }
    EXPECT_EQ(*back, doc) << json << " reads back as " << back->to_canonical_json();
  };
  for (const char* key : {"$numberLong", "$date", "$oid", "$numberDecimal", "$binary", "$regularExpression",
                          "$code", "$timestamp", "$minKey", "$uuid", "$dbPointer", "$symbol", "$numberDouble"}) {
    SCOPED_TRACE(key);
    odm::Document top;
    bson_append_utf8(top.get_mutable(), key, -1, "5", -1);
    check(top);
    odm::Document date_text;  // a string that looks like libbson's five-digit year
    bson_append_utf8(date_text.get_mutable(), key, -1, "10000-01-01T00:00:00Z", -1);
    check(date_text);
    odm::Document scope;
    bson_append_utf8(scope.get_mutable(), key, -1, "10000-01-01T00:00:00Z", -1);
    odm::Document in_scope;
    bson_append_code_with_scope(in_scope.get_mutable(), "f", 1, "g()", scope.get());
    check(in_scope);
  }
}

TEST(HostileJson, AModelsMapKeysThatLookLikeWrappersCannotBeWritten) {
  // A map key "$numberLong" is refused when encoding (a '$' key), so a model never holds
  // a document that would read back from Extended JSON as a number.
  Counts counts;
  counts.counts["$numberLong"] = 5;
  EXPECT_THROW((void)odm::to_bson(counts), odm::EncodeError);
}

// ---- keys MongoDB would refuse, on encode -------------------------------------------

struct Deep {
  std::vector<std::map<std::string, std::optional<std::variant<std::int32_t, std::map<std::string, std::int32_t>>>>>
      rows;
};

TEST(HostileEncode, KeysMongoDbRefusesAreRefusedWhereverTheMapIsNamingThePath) {
  for (const std::string& key :
       {std::string(""), std::string("$set"), std::string("a.b"), std::string("a\0b", 3), std::string("\xff"),
        std::string("\xc3"), std::string(".")}) {
    SCOPED_TRACE(key);
    Deep deep;
    deep.rows.resize(2);
    deep.rows[1]["ok"] = std::map<std::string, std::int32_t>{{key, 1}};
    const auto e = odm_test::thrown<odm::EncodeError>([&] { (void)odm::to_bson(deep); });
    EXPECT_EQ(e.path(), "rows.1.ok") << e.what();
    EXPECT_NE(e.reason().find("map key"), std::string::npos) << e.what();
  }
  // Keys that are fine: a '$' inside, non-ASCII UTF-8, digits.
  Deep fine;
  fine.rows.resize(1);
  fine.rows[0]["a$"] = std::map<std::string, std::int32_t>{{"\xc3\xa9t\xc3\xa9", 1}, {"0", 2}};
  const odm::Document bson = odm::to_bson(fine);
  EXPECT_EQ(odm::to_bson(odm::from_bson<Deep>(bson)), bson);
}

}  // namespace bson_hostile_input_test
