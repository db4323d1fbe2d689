// Decoding a std::variant is linear in the input whatever the model. The model below is
// the issue's expression tree: two alternatives that both recurse. Trying each alternative
// on the whole subtree (the old rule) doubled the work at every level: 16 levels took 5.2 s
// and built a 16.6 MB message, 24 levels about 20 minutes. The tests count the decoder's
// work instead of timing it: every value is decoded exactly once.

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace bson_variant_linear_test {

/// An int32 whose decodes are counted (not an aggregate, so it is not a struct to odm).
struct Counted {
  Counted() = default;
  explicit Counted(std::int32_t v) : value(v) {}
  std::int32_t value = 0;
  bool operator==(const Counted&) const = default;
};
thread_local std::size_t decodes = 0;

}  // namespace bson_variant_linear_test

template <>
struct odm::codec<bson_variant_linear_test::Counted> {
  using kind = odm::kind_of<std::int32_t>;
  static void encode(bson_t* parent, std::string_view key, const bson_variant_linear_test::Counted& value) {
    odm::codec<std::int32_t>::encode(parent, key, value.value);
  }
  static void decode(const bson_iter_t& it, bson_variant_linear_test::Counted& out) {
    ++bson_variant_linear_test::decodes;
    odm::codec<std::int32_t>::decode(it, out.value);
  }
};

namespace bson_variant_linear_test {

struct Expr;
struct Leaf {
  Counted value;
  bool operator==(const Leaf&) const = default;
};
/// Needs an `op`: under the old rule a Scaled document was first decoded whole as a Sum,
/// which failed only at the end, for want of `op`.
struct Sum {
  std::vector<Expr> terms;
  std::string op;
  bool operator==(const Sum&) const;
};
struct Scaled {
  Counted factor;
  std::vector<Expr> terms;
  bool operator==(const Scaled&) const;
};
struct Expr {
  std::variant<Leaf, Sum, Scaled> node;
  bool operator==(const Expr&) const;
};
// (Written out: clang 14 crashes on defaulted comparisons of this recursion.)
bool Expr::operator==(const Expr& other) const { return node == other.node; }
bool Sum::operator==(const Sum& other) const { return terms == other.terms && op == other.op; }
bool Scaled::operator==(const Scaled& other) const { return factor == other.factor && terms == other.terms; }

/// `levels` Scaled nodes, each with `width` terms, down to leaves. Returns the tree and
/// counts the Counted values in it.
Expr tree(int levels, int width, std::size_t& values) {
  if (levels == 0) {
    ++values;
    return Expr{Leaf{Counted(7)}};
  }
  Scaled scaled{Counted(levels), {}};
  ++values;
  for (int i = 0; i < width; ++i) scaled.terms.push_back(tree(levels - 1, width, values));
  return Expr{std::move(scaled)};
}

std::size_t decodes_of(const odm::Document& doc) {
  decodes = 0;
  (void)odm::from_bson<Expr>(doc);
  return decodes;
}

TEST(VariantLinear, EveryValueIsDecodedOnceAt16And24And32Levels) {
  // 32 levels is 98 levels of BSON (three per Scaled: the Expr, its node, the terms array).
  for (const int levels : {16, 24, 32}) {
    SCOPED_TRACE(levels);
    std::size_t values = 0;
    const Expr expr = tree(levels, 1, values);
    const odm::Document doc = odm::to_bson(expr);
    EXPECT_EQ(decodes_of(doc), values);
    EXPECT_EQ(odm::from_bson<Expr>(doc), expr);
    // The same through Extended JSON.
    decodes = 0;
    EXPECT_EQ(odm::from_json<Expr>(doc.to_json()), expr);
    EXPECT_EQ(decodes, values);
  }
}

TEST(VariantLinear, AWideTreeToo) {
  std::size_t values = 0;
  const Expr expr = tree(10, 2, values);  // 1,023 Scaled nodes, 1,024 leaves
  const odm::Document doc = odm::to_bson(expr);
  EXPECT_EQ(decodes_of(doc), values);
  decodes = 0;
  EXPECT_EQ(odm::from_json<Expr>(doc.to_json()), expr);
  EXPECT_EQ(decodes, values);
}

/// {node: {factor: 1, terms: [ ... {node: <innermost>} ]}} as raw Extended JSON text,
/// `levels` Scaled nodes deep (deeper than odm::max_depth if asked).
std::string deep_json(int levels, std::string_view innermost) {
  std::string text;
  for (int i = 0; i < levels; ++i) text += R"({"node": {"factor": 1, "terms": [)";
  text += "{\"node\": ";
  text += innermost;
  text += "}";
  for (int i = 0; i < levels; ++i) text += "]}}";
  return text;
}

TEST(VariantLinear, AnErrorAtTheBottomSaysWhatFailedThereAndStaysShort) {
  // The leaf holds a string: Leaf fits by shape (its value's type is the codec's business),
  // and its decoding fails; no other alternative is tried.
  decodes = 0;
  const std::string bad_leaf = odm_test::decode_error<Expr>(deep_json(32, R"({"value": "x"})"));
  EXPECT_NE(bad_leaf.find("node.terms.0.node.terms.0."), std::string::npos) << bad_leaf;
  EXPECT_NE(bad_leaf.find(": expected int, got string"), std::string::npos) << bad_leaf;
  EXPECT_LT(bad_leaf.size(), 1500u) << bad_leaf;
  EXPECT_EQ(decodes, 33u);  // 32 factors and the leaf, each once
  // Nothing fits at the bottom: the reasons of the three alternatives, one line each.
  const std::string no_fit = odm_test::decode_error<Expr>(deep_json(32, R"({"weight": 1})"));
  EXPECT_NE(no_fit.find("none of the variant's 3 alternatives fits the stored object (value: missing required field; "
                        "terms: missing required field; factor: missing required field)"),
            std::string::npos)
      << no_fit;
  EXPECT_LT(no_fit.size(), 1500u) << no_fit;
}

TEST(VariantLinear, FarMoreLevelsAreRefusedAtTheNestingLimit) {
  for (const int levels : {34, 40, 1000}) {
    SCOPED_TRACE(levels);
    const odm::Document doc = [&] {
      // libbson's JSON reader stops at 98 levels: build the BSON by nesting documents.
      odm::Document inner = odm_test::doc_from_json(R"({"node": {"value": 1}})");
      for (int i = 0; i < levels; ++i) {
        odm::Document scaled;
        bson_t node;
        bson_t terms;
        bson_append_document_begin(scaled.get_mutable(), "node", -1, &node);
        bson_append_int32(&node, "factor", -1, 1);
        bson_append_array_begin(&node, "terms", -1, &terms);
        bson_append_document(&terms, "0", -1, inner.get());
        bson_append_array_end(&node, &terms);
        bson_append_document_end(scaled.get_mutable(), &node);
        inner = std::move(scaled);
      }
      return inner;
    }();
    decodes = 0;
    try {
      (void)odm::from_bson<Expr>(doc);
      ADD_FAILURE() << "decoded";
    } catch (const odm::DecodeError& e) {
      EXPECT_NE(e.reason().find("nested deeper than 100 levels"), std::string::npos) << e.what();
      EXPECT_LT(std::string_view(e.what()).size(), 1500u);
    }
    EXPECT_LE(decodes, 34u);  // at most one per level reached
  }
}

}  // namespace bson_variant_linear_test
