// Joins at the scale the batching is for: 100,000 ids in two $in finds, and children
// found through the index every ParentRef implies. On a server these take seconds (the
// odm test server looks _id up by hash and uses declared indexes for equality and $in);
// what is asserted is the result and the number of commands.

#include <odm/index/sync.hpp>
#include <odm/join/join.hpp>
#include <odm/odm.hpp>

#include "../driver/support.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace {

constexpr std::int32_t kParts = 100'000;

struct Part {
  std::int32_t id = 0;
  std::string name;
  std::int32_t weight = 0;
  struct odm_model {
    static constexpr std::string_view collection = "parts";
  };
};

/// Not stored: only its references are resolved.
struct Assembly {
  std::int32_t id = 0;
  odm::RefMany<Part> parts;
};

struct Label {
  odm::ObjectId id;
  odm::ParentRef<Part> part;
  std::string text;
  struct odm_model {
    static constexpr std::string_view collection = "labels";
  };
};

class JoinScale : public odm_test::DriverTest {
 protected:
  std::vector<Part> store_parts() {
    std::vector<Part> parts;
    parts.reserve(kParts);
    for (std::int32_t i = 0; i < kParts; ++i) parts.push_back({i, "part " + std::to_string(i), i % 97});
    db().collection<Part>().insert_many(parts);
    return parts;
  }
};

TEST_F(JoinScale, OneHundredThousandReferencesResolveInTwoFinds) {
  ODM_REQUIRE(large_in_queries);
  store_parts();
  Assembly assembly{1, {}};
  for (std::int32_t i = kParts - 1; i >= 0; --i) assembly.parts.push_back(i);  // newest first
  assembly.parts.push_back(42);                                                // and one twice
  std::vector<Assembly> assemblies{assembly};
  log_.clear();

  odm::resolve(db(), assemblies, odm::with(&Assembly::parts));

  EXPECT_EQ(log_.started("find"), 2) << "100,000 distinct ids at 50,000 per query";
  const auto& parts = assemblies[0].parts;
  ASSERT_EQ(parts.size(), static_cast<std::size_t>(kParts) + 1);
  ASSERT_EQ(parts.targets().size(), parts.size()) << "every reference resolved";
  for (std::size_t i = 0; i < static_cast<std::size_t>(kParts); ++i) {
    const std::int32_t expected = kParts - 1 - static_cast<std::int32_t>(i);
    ASSERT_EQ(parts[i].id, expected) << "the references keep their order";
    ASSERT_EQ(parts[i].name, "part " + std::to_string(expected));
    ASSERT_EQ(parts[i].weight, expected % 97);
  }
  EXPECT_EQ(parts[static_cast<std::size_t>(kParts)].id, 42);
}

TEST_F(JoinScale, ChildrenOfOneHundredThousandParentsThroughTheirIndex) {
  ODM_REQUIRE(large_in_queries);
  const std::vector<Part> parts = store_parts();
  odm::sync_indexes<Label>(db());  // {part: 1}, implied by the ParentRef
  std::vector<Label> labels;
  labels.reserve(kParts / 2);
  for (std::int32_t i = 0; i < kParts; i += 2) labels.push_back({{}, odm::ParentRef<Part>(i), "even " + std::to_string(i)});
  db().collection<Label>().insert_many(labels);
  log_.clear();

  const auto children = odm::children_of(db(), parts, &Label::part);

  EXPECT_EQ(log_.started("find"), 2) << "one $in find per 50,000 parents";
  ASSERT_EQ(children.size(), parts.size());
  for (std::size_t i = 0; i < children.size(); ++i) {
    if (i % 2 == 1) {
      ASSERT_TRUE(children[i].empty()) << "odd part " << i << " has no label";
      continue;
    }
    ASSERT_EQ(children[i].size(), 1u) << "part " << i;
    ASSERT_EQ(children[i][0].text, "even " + std::to_string(i));
  }
}

}  // namespace
