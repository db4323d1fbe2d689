// One nesting limit, odm::max_depth (100 levels: a document is level 1, each document or
// array inside adds one), for decoding, validation, encoding and Extended JSON; checked
// before any recursion can run out of stack, also on a thread with a small stack. Inputs
// far deeper than the limit (up to 50,000 levels, 1.1 MB of valid BSON) are refused with
// an error that says so, never a crash.

#include "bson/hostile_support.hpp"
#include "bson/thrown.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace bson_nesting_limit_test {

using odm_hostile::Bytes;
using odm_hostile::nested_documents;
using odm_hostile::node_chain;
using odm_hostile::run_with_stack;

struct Node {
  std::vector<Node> children;
  bool operator==(const Node&) const = default;
};

/// A model that declares none of the deep fields: they are skipped, but still checked.
struct Shallow {
  std::optional<std::int32_t> n;
};

constexpr std::string_view kTooDeep = "nested deeper than 100 levels of documents and arrays";
/// No message may grow with the input: a path of 100 steps shows 16 of them.
constexpr std::size_t kMessageLimit = 2048;

/// A chain of `nodes` Nodes, built without recursion.
Node node_tree(std::size_t nodes) {
  Node root;
  Node* at = &root;
  for (std::size_t i = 1; i < nodes; ++i) {
    at->children.emplace_back();
    at = &at->children.back();
  }
  return root;
}

/// Frees a deep tree level by level (its destructor would recurse once per level).
void dismantle(Node& root) {
  std::vector<Node> pending = std::move(root.children);
  while (!pending.empty()) {
    std::vector<Node> next = std::move(pending.back().children);
    pending.pop_back();
    for (Node& child : next) pending.push_back(std::move(child));
  }
}

bson_t view_of(const Bytes& bytes) {
  bson_t view;
  if (!bson_init_static(&view, bytes.data(), bytes.size())) throw std::runtime_error("not a document");
  return view;
}

TEST(NestingLimit, ADocumentAtTheLimitIsAcceptedOneLevelMoreIsRefusedSayingSo) {
  EXPECT_NO_THROW((void)odm::Document::from_bytes(nested_documents(100)));
  const auto e = odm_test::thrown<odm::DecodeError>([] { (void)odm::Document::from_bytes(nested_documents(101)); });
  EXPECT_NE(e.reason().find(kTooDeep), std::string::npos) << e.what();
  EXPECT_EQ(e.depth(), 100u);  // a.a. ... .a: the key of the document at level 101
  EXPECT_LT(std::string_view(e.what()).size(), kMessageLimit);
  // Arrays count as levels too.
  const Bytes arrays = odm_hostile::nested_bson(101, [](std::size_t) { return std::string("0"); },
                                                [](std::size_t level) { return level > 1; });
  EXPECT_THROW((void)odm::Document::from_bytes(arrays), odm::DecodeError);
}

TEST(NestingLimit, ARecursiveModelDecodesUpToTheLimit) {
  // Node levels: a Node document, then its children array: 50 Nodes are 100 levels.
  const Bytes fifty = node_chain(50);
  Node decoded = odm::from_bson<Node>(std::span<const std::uint8_t>(fifty));
  std::size_t depth = 1;
  for (const Node* at = &decoded; !at->children.empty(); at = &at->children.front()) ++depth;
  EXPECT_EQ(depth, 50u);
  const auto e = odm_test::thrown<odm::DecodeError>([] { (void)odm::from_bson<Node>(std::span<const std::uint8_t>(node_chain(51))); });
  EXPECT_NE(e.reason().find(kTooDeep), std::string::npos) << e.what();
  EXPECT_EQ(e.path().substr(0, 13), "children.0.ch");
  EXPECT_LT(std::string_view(e.what()).size(), kMessageLimit);
}

/// Every way in for a document `levels` deep; each must refuse it cleanly.
void expect_all_refuse(std::size_t levels) {
  SCOPED_TRACE("levels " + std::to_string(levels));
  const Bytes deep = nested_documents(levels);
  const Bytes nodes = node_chain((levels + 1) / 2);
  const bson_t view = view_of(deep);

  const auto decode = odm_test::thrown<odm::DecodeError>([&] { (void)odm::Document::from_bytes(deep); });
  EXPECT_NE(decode.reason().find(kTooDeep), std::string::npos) << decode.what();
  EXPECT_LT(std::string_view(decode.what()).size(), kMessageLimit);

  const auto node = odm_test::thrown<odm::DecodeError>([&] { (void)odm::from_bson<Node>(std::span<const std::uint8_t>(nodes)); });
  EXPECT_NE(node.reason().find(kTooDeep), std::string::npos) << node.what();
  EXPECT_LT(std::string_view(node.what()).size(), kMessageLimit);

  // A field the model does not declare is not decoded, but its nesting is still checked.
  const auto skipped = odm_test::thrown<odm::DecodeError>([&] { (void)odm::from_bson<Shallow>(&view); });
  EXPECT_NE(skipped.reason().find(kTooDeep), std::string::npos) << skipped.what();

  // A Document that was never validated (copy_of trusts its caller): to_json refuses it.
  const odm::Document unchecked = odm::Document::copy_of(&view);
  const auto json = odm_test::thrown<odm::EncodeError>([&] { (void)unchecked.to_json(); });
  EXPECT_LT(std::string_view(json.what()).size(), kMessageLimit);
  EXPECT_THROW((void)unchecked.to_canonical_json(), odm::EncodeError);

  // JSON text that deep: libbson's reader stops at its own limit.
  std::string text;
  for (std::size_t i = 0; i < levels; ++i) text += "{\"a\": ";
  text += "1";
  text.append(levels, '}');
  const auto from_json = odm_test::thrown<odm::JsonError>([&] { (void)odm::Document::from_json(text); });
  EXPECT_NE(std::string_view(from_json.what()).find("nested deeper than"), std::string::npos) << from_json.what();
  EXPECT_THROW((void)odm::from_json<Node>(text), odm::JsonError);
}

TEST(NestingLimit, InputsFarDeeperThanTheLimitAreRefusedNotCrashed) {
  // 200 levels used to be reported as invalid UTF-8; 5,000 crashed bson_validate;
  // 20,000 and 50,000 crashed the decoder (SIGSEGV).
  for (const std::size_t levels : {101u, 201u, 5000u, 20000u, 50000u}) expect_all_refuse(levels);
}

TEST(NestingLimit, NothingRecursesPastTheLimitOnAThreadWithASmallStack) {
  // 256 KiB: what many thread pools give their threads (musl's default is 128 KiB).
  constexpr std::size_t kStack = 256 * 1024;
  run_with_stack(kStack, [] { expect_all_refuse(50000); });
  run_with_stack(kStack, [] {
    // At the limit everything works, on that same small stack.
    EXPECT_NO_THROW((void)odm::Document::from_bytes(nested_documents(100)));
    Node decoded = odm::from_bson<Node>(std::span<const std::uint8_t>(node_chain(50)));
    EXPECT_EQ(odm::to_bson(decoded).size(), node_chain(50).size());
    const odm::Document json_deep = odm::Document::from_bytes(nested_documents(98));
    EXPECT_EQ(odm::Document::from_json(json_deep.to_json()), json_deep);
  });
}

TEST(NestingLimit, EncodingRefusesTreesDeeperThanTheLimit) {
  EXPECT_NO_THROW((void)odm::to_bson(node_tree(50)));  // 100 levels: what MongoDB stores
  Node too_deep = node_tree(51);
  const auto e = odm_test::thrown<odm::EncodeError>([&] { (void)odm::to_bson(too_deep); });
  EXPECT_NE(e.reason().find(kTooDeep), std::string::npos) << e.what();
  EXPECT_EQ(e.path().substr(0, 22), "children.0.children.0.");
  dismantle(too_deep);

  // 10,000 levels crashed the encoder; now it stops at the limit.
  Node huge = node_tree(10000);
  const auto deep = odm_test::thrown<odm::EncodeError>([&] { (void)odm::to_bson(huge); });
  EXPECT_NE(deep.reason().find(kTooDeep), std::string::npos) << deep.what();
  EXPECT_LT(deep.depth(), 101u);
  EXPECT_LT(std::string_view(deep.what()).size(), kMessageLimit);
  dismantle(huge);
}

struct Tags {
  std::map<std::string, std::map<std::string, std::int32_t>> tags;
};

TEST(NestingLimit, EncodingRefusesAnEmptyMapKeyNamingThePath) {
  EXPECT_EQ(odm_test::encode_error(Tags{{{"a", {{"", 1}}}}}),
            "tags.a: map key \"\" is empty, which libmongoc refuses in a stored document");
  EXPECT_EQ(odm_test::encode_error(Tags{{{"", {}}}}),
            "tags: map key \"\" is empty, which libmongoc refuses in a stored document");
}

TEST(NestingLimit, TheCountIsRestoredAfterAnError) {
  // A refused input leaves nothing behind: the next decode on this thread starts at level 1.
  for (int i = 0; i < 3; ++i) {
    EXPECT_THROW((void)odm::from_bson<Node>(std::span<const std::uint8_t>(node_chain(60))), odm::DecodeError);
    EXPECT_NO_THROW((void)odm::from_bson<Node>(std::span<const std::uint8_t>(node_chain(50))));
    Node tree = node_tree(60);
    EXPECT_THROW((void)odm::to_bson(tree), odm::EncodeError);
    EXPECT_NO_THROW((void)odm::to_bson(node_tree(50)));
  }
}

}  // namespace bson_nesting_limit_test
