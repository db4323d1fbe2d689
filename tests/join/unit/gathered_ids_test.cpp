// Step 1 of every join: the table of distinct ids (join/gathered_ids.hpp). Each reference
// must get the slot of its own id, whatever the id type, length or number of ids; a wrong
// slot would hand a document another document's target.

#include <odm/join/gathered_ids.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace {

using odm::ObjectId;
using odm::detail::GatheredIds;

template <class Id>
GatheredIds<Id> gather(const std::vector<Id>& references) {
  GatheredIds<Id> gathered;
  gathered.reserve(references.size());
  for (const Id& id : references) gathered.add(id);
  return gathered;
}

/// Every reference's slot names its own id, and the ids are distinct, in first-seen order.
template <class Id>
void expect_consistent(const std::vector<Id>& references, const GatheredIds<Id>& gathered) {
  ASSERT_EQ(gathered.slots.size(), references.size());
  std::vector<Id> first_seen;
  std::set<Id> seen;
  for (const Id& id : references)
    if (seen.insert(id).second) first_seen.push_back(id);
  EXPECT_EQ(gathered.ids, first_seen);
  for (std::size_t i = 0; i < references.size(); ++i) {
    ASSERT_LT(gathered.slots[i], gathered.ids.size()) << "reference " << i;
    EXPECT_EQ(gathered.ids[gathered.slots[i]], references[i]) << "reference " << i;
    EXPECT_EQ(gathered.slot_of(references[i]), gathered.slots[i]) << "reference " << i;
  }
}

TEST(GatheredIds, StringIdsKeepFirstSeenOrderAndASlotPerReference) {
  const std::vector<std::string> references{"oreilly", "manning", "oreilly", "apress", "manning", "oreilly"};
  const auto gathered = gather(references);
  EXPECT_EQ(gathered.ids, (std::vector<std::string>{"oreilly", "manning", "apress"}));
  EXPECT_EQ(gathered.slots, (std::vector<std::uint32_t>{0, 1, 0, 2, 1, 0}));
  EXPECT_EQ(gathered.slot_of("nostarch"), (GatheredIds<std::string>::none));
}

TEST(GatheredIds, AnEmptyTableFindsNothing) {
  const GatheredIds<std::int64_t> gathered;
  EXPECT_EQ(gathered.slot_of(0), (GatheredIds<std::int64_t>::none));
  EXPECT_TRUE(gathered.ids.empty());
}

TEST(GatheredIds, StringsOfEveryLengthThatDifferInOneByteAreDistinct) {
  // Hashing and comparing read short strings a word at a time, the last word overlapping
  // the one before: each length and each differing position takes another path.
  std::vector<std::string> references;
  for (std::size_t length = 0; length <= 40; ++length) {
    const std::string base(length, 'a');
    references.push_back(base);
    for (std::size_t at = 0; at < length; ++at) {
      std::string changed = base;
      changed[at] = 'b';
      references.push_back(changed);
    }
  }
  const std::vector<std::string> once = references;
  references.insert(references.end(), once.rbegin(), once.rend());  // every id a second time
  const auto gathered = gather(references);
  EXPECT_EQ(gathered.ids.size(), once.size());
  expect_consistent(references, gathered);
}

TEST(GatheredIds, EmbeddedNulBytesAreNotTheEndOfAStringId) {
  const std::vector<std::string> references{std::string("a\0b", 3), std::string("a\0c", 3), std::string("a\0b", 3)};
  const auto gathered = gather(references);
  EXPECT_EQ(gathered.ids.size(), 2u);
  expect_consistent(references, gathered);
}

TEST(GatheredIds, ObjectIdsThatDifferInAnyOfTheirTwelveBytes) {
  std::vector<ObjectId> references;
  for (int byte = 0; byte < 12; ++byte)
    for (int value = 0; value < 4; ++value) {
      std::string hex(24, '0');
      hex[static_cast<std::size_t>(2 * byte + 1)] = static_cast<char>('0' + value);
      references.push_back(ObjectId::parse(hex));
    }
  const std::vector<ObjectId> once = references;
  references.insert(references.end(), once.begin(), once.end());
  const auto gathered = gather(references);
  EXPECT_EQ(gathered.ids.size(), 12u * 3u + 1u);  // value 0 is the same all-zero id each time
  expect_consistent(references, gathered);
}

TEST(GatheredIds, ManyIdsGrowTheTableWithoutLosingAny) {
  // 100,000 distinct integers, each referenced three times, interleaved: the table grows
  // from 16 buckets to 2^18 while slots are being handed out.
  std::vector<std::int64_t> references;
  for (int round = 0; round < 3; ++round)
    for (std::int64_t i = 0; i < 100'000; ++i) references.push_back(round == 1 ? 99'999 - i : i * 1'000'003 % 100'000);
  const auto gathered = gather(references);
  EXPECT_EQ(gathered.ids.size(), 100'000u);
  expect_consistent(references, gathered);
}

TEST(GatheredIds, Int32AndNegativeIds) {
  const std::vector<std::int32_t> references{-1, 0, 1, -1, INT32_MIN, INT32_MAX, 0, INT32_MIN};
  const auto gathered = gather(references);
  EXPECT_EQ(gathered.ids, (std::vector<std::int32_t>{-1, 0, 1, INT32_MIN, INT32_MAX}));
  expect_consistent(references, gathered);
}

TEST(GatheredIds, SequentialKeysSpreadOverTheBuckets) {
  // The low bits pick the bucket: keys that differ only in their last characters ("pub1",
  // "pub2", ...) must not pile up in a few buckets. Random placement of 4,096 keys in
  // 4,096 buckets fills about 63% of them; a hash without a final mix fills far fewer.
  for (const char* prefix : {"pub", "publisher-", "a-rather-long-prefix-of-a-string-id-"}) {
    std::set<std::uint64_t> used;
    for (int i = 0; i < 4096; ++i) used.insert(odm::detail::hash_id(prefix + std::to_string(i)) & 4095);
    EXPECT_GT(used.size(), 4096u * 55 / 100) << prefix;
  }
  std::set<std::uint64_t> used;
  for (std::int64_t i = 0; i < 4096; ++i) used.insert(odm::detail::hash_id(i << 12) & 4095);
  EXPECT_GT(used.size(), 4096u * 55 / 100) << "integers that differ only above the low 12 bits";
}

TEST(GatheredIds, AReferenceIdHashesAsTheIdItHolds) {
  using odm::detail::ReferenceId;
  EXPECT_EQ(odm::detail::hash_id(ReferenceId(std::string("oreilly"))), odm::detail::hash_id(std::string("oreilly")));
  EXPECT_EQ(odm::detail::hash_id(ReferenceId(std::int64_t{42})), odm::detail::hash_id(std::int64_t{42}));
  const ObjectId oid = ObjectId::parse("5f1a2b3c4d5e6f7081928374");
  EXPECT_EQ(odm::detail::hash_id(ReferenceId(oid)), odm::detail::hash_id(oid));
}

}  // namespace
