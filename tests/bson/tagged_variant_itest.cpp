// Tagged variants in a collection (odm::tag, odm/bson/tagged_variant.hpp): what a service
// stores reads back as written, a kind it does not know is an error naming the document, and
// in a rolling deploy where v2 adds a kind while v1 keeps writing (v1 keeps what it does not
// know in odm::UnknownKind) nothing is lost, checked against a reference model over random
// operations. ODM_VARIANT_SEED chooses the seed (default 20261202); a failure prints it.

#include "driver/support.hpp"

#include <odm/odm.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <variant>
#include <vector>

namespace bson_tagged_variant_itest {

std::uint64_t seed() {
  const char* text = std::getenv("ODM_VARIANT_SEED");
  return text != nullptr ? std::strtoull(text, nullptr, 10) : 20261202u;
}

struct Card {
  std::string number;
  struct odm_model {
    static constexpr auto tag = odm::tag("card");
  };
  bool operator==(const Card&) const = default;
};
struct CardWithExpiry {
  std::string number;
  std::string expiry;
  struct odm_model {
    static constexpr auto tag = odm::tag("card_with_expiry");
  };
  bool operator==(const CardWithExpiry&) const = default;
};
/// The kind v2 adds.
struct Voucher {
  std::string code;
  std::int64_t cents = 0;
  struct odm_model {
    static constexpr auto tag = odm::tag("voucher");
  };
  bool operator==(const Voucher&) const = default;
};

/// v1 of the service: it knows two kinds and keeps the others.
struct OrderV1 {
  std::int32_t id = 0;
  std::string note;
  std::vector<std::variant<Card, CardWithExpiry, odm::UnknownKind>> payments;
  struct odm_model {
    static constexpr std::string_view collection = "orders";
  };
};
/// v2: a third kind.
struct OrderV2 {
  std::int32_t id = 0;
  std::string note;
  std::vector<std::variant<Card, CardWithExpiry, Voucher>> payments;
  struct odm_model {
    static constexpr std::string_view collection = "orders";
  };
  bool operator==(const OrderV2&) const = default;
};

// A top-level model with a kind tag.
struct Ticket {
  std::int64_t id = 0;
  std::string title;
  struct odm_model {
    static constexpr std::string_view collection = "tickets";
    static constexpr auto tag = odm::tag("ticket");
  };
};

class TaggedVariantStorage : public odm_test::DriverTest {};

// Every write that may insert writes the kind's tag, so the document reads back as its kind
// and passes the $jsonSchema odm derives (which requires the tag).
TEST_F(TaggedVariantStorage, AnUpsertThatInsertsWritesTheTag) {
  auto tickets = db().collection<Ticket>();
  auto raw = db().collection<odm::Document>("tickets");
  const auto has_tag = [&](std::int64_t id) {
    const auto stored = raw.find_one(odm::Document::from_json(R"({"_id": )" + std::to_string(id) + "}"));
    return stored && stored->to_json().find(R"("_type" : "ticket")") != std::string::npos;
  };
  tickets.update_one(odm::field(&Ticket::id) == 1, odm::field(&Ticket::title).set("a"),
                     odm::UpdateOptions<Ticket>{}.upsert());
  EXPECT_TRUE(has_tag(1));
  tickets.update_many(odm::field(&Ticket::id) == 2, odm::field(&Ticket::title).set("b"),
                      odm::UpdateOptions<Ticket>{}.upsert());
  EXPECT_TRUE(has_tag(2));
  (void)tickets.find_one_and_update(odm::field(&Ticket::id) == 3, odm::field(&Ticket::title).set("c"),
                                    odm::FindOneAndUpdateOptions<Ticket>{}.upsert());
  EXPECT_TRUE(has_tag(3));
  tickets.bulk_write()
      .update_one(odm::field(&Ticket::id) == 4, odm::field(&Ticket::title).set("d"), odm::UpdateOptions<Ticket>{}.upsert())
      .execute();
  EXPECT_TRUE(has_tag(4));
  tickets.replace_one(odm::field(&Ticket::id) == 5, Ticket{5, "e"}, odm::ReplaceOptions<Ticket>{}.upsert());
  EXPECT_TRUE(has_tag(5));
  for (std::int64_t id = 1; id <= 5; ++id) EXPECT_EQ(tickets.get_by_id(id).id, id);
  // An upsert that matches leaves the stored tag as it is.
  tickets.update_one(odm::field(&Ticket::id) == 1, odm::field(&Ticket::title).set("a2"),
                     odm::UpdateOptions<Ticket>{}.upsert());
  EXPECT_TRUE(has_tag(1));
}

TEST_F(TaggedVariantStorage, WhatIsStoredReadsBackAsWritten) {
  auto orders = db().collection<OrderV2>();
  const OrderV2 order{1, "n", {CardWithExpiry{"4111", "12/30"}, Card{"4111"}, Voucher{"X", 500}}};
  orders.insert_one(order);
  EXPECT_EQ(orders.get_by_id(1), order);
  EXPECT_EQ(orders.find().to_vector(), std::vector<OrderV2>{order});
}

TEST_F(TaggedVariantStorage, AnUnknownKindIsAnErrorNamingTheDocumentAndTheCursorGoesOn) {
  auto v2 = db().collection<OrderV2>();
  v2.insert_one(OrderV2{1, "a", {Card{"1"}}});
  v2.insert_one(OrderV2{2, "b", {Voucher{"X", 5}}});
  v2.insert_one(OrderV2{3, "c", {CardWithExpiry{"3", "x"}}});
  struct Strict {
    std::int32_t id = 0;
    std::string note;
    std::vector<std::variant<Card, CardWithExpiry>> payments;
  };
  auto v1 = db().collection<OrderV1>();  // keeps the voucher
  EXPECT_EQ(std::get<odm::UnknownKind>(v1.get_by_id(2).payments.at(0)).tag, "voucher");
  auto cursor = db().collection<Strict>("orders").find();
  std::vector<std::int32_t> seen;
  int errors = 0;
  auto it = cursor.begin();
  while (it != cursor.end()) {
    seen.push_back(it->id);
    try {
      ++it;
    } catch (const odm::DecodeError& error) {
      ++errors;
      EXPECT_EQ(error.path(), "payments.0._type") << error.what();
      EXPECT_NE(std::string(error.what()).find(R"(unknown kind "voucher")"), std::string::npos) << error.what();
      EXPECT_NE(std::string(error.what()).find(R"({ "_id" : 2 })"), std::string::npos) << error.what();
      it = cursor.begin();
    }
  }
  EXPECT_EQ(seen, (std::vector<std::int32_t>{1, 3}));
  EXPECT_EQ(errors, 1);
}

TEST_F(TaggedVariantStorage, ARollingDeployLosesNothing) {
  auto v1 = db().collection<OrderV1>();
  auto v2 = db().collection<OrderV2>();
  std::mt19937_64 rng(seed());
  const auto between = [&](int low, int high) { return std::uniform_int_distribution<int>(low, high)(rng); };
  std::map<std::int32_t, OrderV2> reference;
  const auto random_payment = [&](bool knows_vouchers) -> std::variant<Card, CardWithExpiry, Voucher> {
    switch (between(0, knows_vouchers ? 2 : 1)) {
      case 0: return Card{std::to_string(between(0, 9999))};
      case 1: return CardWithExpiry{std::to_string(between(0, 9999)), std::to_string(between(1, 12)) + "/30"};
      default: return Voucher{"V" + std::to_string(between(0, 99)), between(1, 10000)};
    }
  };
  const auto as_v1 = [](const std::variant<Card, CardWithExpiry, Voucher>& p)
      -> std::variant<Card, CardWithExpiry, odm::UnknownKind> {
    if (const auto* card = std::get_if<Card>(&p)) return *card;
    return std::get<CardWithExpiry>(p);
  };
  for (int step = 0; step < 300; ++step) {
    const bool by_v1 = between(0, 1) == 0;
    const int action = reference.empty() ? 0 : between(0, 2);
    const std::int32_t id = action == 0 ? static_cast<std::int32_t>(reference.size() + 1)
                                        : std::next(reference.begin(), between(0, static_cast<int>(reference.size()) - 1))->first;
    SCOPED_TRACE("seed " + std::to_string(seed()) + ", step " + std::to_string(step));
    if (action == 0) {  // a new order
      OrderV2 order{id, "new", {}};
      for (int n = between(0, 3); n > 0; --n) order.payments.push_back(random_payment(!by_v1));
      if (by_v1) {
        OrderV1 old{id, order.note, {}};
        for (const auto& p : order.payments) old.payments.push_back(as_v1(p));
        v1.insert_one(old);
      } else {
        v2.insert_one(order);
      }
      reference[id] = order;
    } else if (by_v1) {  // v1 reads, edits the note, appends a kind it knows, saves the whole document
      OrderV1 old = v1.get_by_id(id);
      old.note += "1";
      const auto added = random_payment(false);
      old.payments.push_back(as_v1(added));
      ASSERT_EQ(v1.replace_one(odm::field(&OrderV1::id) == id, old).matched, 1);
      reference[id].note += "1";
      reference[id].payments.push_back(added);
    } else {  // v2 does the same, with any kind
      OrderV2 order = v2.get_by_id(id);
      ASSERT_EQ(order, reference[id]);
      order.note += "2";
      order.payments.push_back(random_payment(true));
      ASSERT_EQ(v2.replace_one(odm::field(&OrderV2::id) == id, order).matched, 1);
      reference[id] = order;
    }
  }
  std::map<std::int32_t, OrderV2> stored;
  for (const OrderV2& order : v2.find()) stored[order.id] = order;
  EXPECT_EQ(stored, reference) << "seed " << seed();
}

}  // namespace bson_tagged_variant_itest
