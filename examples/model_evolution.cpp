// Models that outlive their documents: an order service ships v2 of its Order while v1
// still runs, and another program writes to the same collection.
//   - v2 adds a field with a default: it reads every document v1 wrote;
//   - v1 replaces an order v2 wrote: v2's field survives;
//   - a model with an odm::Extra member keeps what it does not know, byte for byte;
//   - a tracked order saves only what changed, so two writers of different fields both win;
//   - v3 stores the total as Decimal128 (the money guide's migration from NumberLong cents):
//     it declares schema version 2 and a step from 1, reads older orders lazily, and a
//     batch migration rewrites them all;
//   - a field renamed while v1 still runs: v2 writes both names and reads the one v1 wrote
//     last (expand); once no v1 is left, a step and a migration drop the old name (contract).
#include "example_support.hpp"

#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

namespace {

// v1, as deployed.
struct Order {
  std::int64_t id;
  std::string customer;
  std::int64_t total_cents;
  struct odm_model {
    static constexpr std::string_view collection = "orders";
  };
};

// v2 adds `channel`: documents written before it read "web".
struct OrderV2 {
  std::int64_t id;
  std::string customer;
  std::int64_t total_cents;
  std::string channel = "web";
  struct odm_model {
    static constexpr std::string_view collection = "orders";
    static constexpr auto fields = odm::fields(odm::defaulted(&OrderV2::channel));
  };
};

// An admin tool that knows only the customer, and keeps the rest.
struct OrderCustomer {
  std::int64_t id;
  std::string customer;
  odm::Extra rest;  // every field this model does not declare
  struct odm_model {
    static constexpr std::string_view collection = "orders";
  };
};

// The shapes of the step from version 1 (cents) to version 2 (Decimal128). Their odm::Extra
// members carry the fields neither declares.
struct OrderCents {
  std::int64_t id;
  std::string customer;
  std::int64_t total_cents;
  std::string channel = "web";
  odm::Extra rest;
  struct odm_model {
    static constexpr auto when_absent = odm::Absent::initial_value;
  };
};
struct OrderDecimal {
  std::int64_t id;
  std::string customer;
  odm::Decimal total;
  std::string channel;
  odm::Extra rest;
};
OrderDecimal cents_to_decimal(const OrderCents& old) {
  return {old.id, old.customer, odm::Decimal(old.total_cents, -2), old.channel, old.rest};
}

// v3: documents carry `schema_version: 2`; those without it are version 1 and upgraded.
struct OrderV3 {
  std::int64_t id;
  std::string customer;
  odm::Decimal total;
  std::string channel = "web";
  odm::Extra rest;
  struct odm_model {
    static constexpr std::string_view collection = "orders";
    static constexpr auto schema = odm::schema_versions<2>(odm::upgrade<1>(&cents_to_decimal));
  };
};

// A rename through a rolling deploy: v1 stores the customer's contact as "phone".
struct Customer {
  std::int64_t id;
  std::string phone;
  struct odm_model {
    static constexpr std::string_view collection = "customers";
  };
};

// Expand: v2 calls it `contact` and, while v1 runs, also writes "phone" and reads it first.
struct CustomerV2 {
  std::int64_t id;
  std::string contact;
  struct odm_model {
    static constexpr std::string_view collection = "customers";
    static constexpr auto fields = odm::fields(odm::renamed_from<&CustomerV2::contact>("phone"));
  };
};

// Contract, once no program writes "phone": a step moves it, a migration rewrites the rest.
struct CustomerV3 {
  std::int64_t id;
  std::string contact;
  struct odm_model {
    static constexpr std::string_view collection = "customers";
    static constexpr auto schema = odm::schema_versions<2>(odm::upgrade<1>(odm::rename_field("phone", "contact")));
  };
};

}  // namespace

int main() {
  return example::run([] {
    const odm::Client client = example::connect();
    const odm::Database db = example::examples_db(client);
    auto v1 = db.collection<Order>();
    auto v2 = db.collection<OrderV2>();
    v1.drop();

    example::step("v1 writes an order; v2, which added `channel`, reads it with the default");
    v1.insert_one(Order{1, "ana", 990});
    const OrderV2 read = v2.get_by_id(1);
    example::show("v2 read", read);
    example::check(read.channel == "web", "the missing field reads as the member's initializer");

    example::step("v2 writes an order; v1 replaces it; v2's field survives");
    v2.insert_one(OrderV2{2, "bo", 1500, "shop"});
    Order old = v1.get_by_id(2);
    old.total_cents = 1400;
    v1.replace_one(odm::field(&Order::id) == 2, old);
    const OrderV2 after_replace = v2.get_by_id(2);
    example::show("v2 read", after_replace);
    example::check(after_replace.total_cents == 1400 && after_replace.channel == "shop",
                   "v1's replace set v1's fields and left `channel` alone");

    example::step("a model with odm::Extra keeps the fields it does not know");
    auto admin = db.collection<OrderCustomer>();
    OrderCustomer customer = admin.get_by_id(2);
    example::show("kept", customer.rest.fields());
    customer.customer = "bob";
    admin.replace_one(odm::field(&OrderCustomer::id) == 2, customer);
    const OrderV2 after_admin = v2.get_by_id(2);
    example::check(after_admin.customer == "bob" && after_admin.total_cents == 1400 && after_admin.channel == "shop",
                   "the admin tool's replace wrote back the fields it kept");

    example::step("two writers load order 2; each changes a different field and saves");
    odm::Tracked<OrderV2> first = odm::track(v2.get_by_id(2));
    odm::Tracked<OrderV2> second = odm::track(v2.get_by_id(2));
    first->total_cents = 1300;
    second->channel = "app";
    example::show("first sends", first.changes());
    first.save(v2);
    second.save(v2);
    const OrderV2 both = v2.get_by_id(2);
    example::show("stored", both);
    example::check(both.total_cents == 1300 && both.channel == "app", "both changes are kept");

    example::step("v3 reads order 1, stored in cents at version 1, upgraded in memory");
    auto v3 = db.collection<OrderV3>();
    const OrderV3 upgraded = v3.get_by_id(1);
    example::show("v3 read", upgraded);
    example::check(upgraded.total == odm::Decimal("9.90"), "990 cents read as 9.90");

    example::step("a batch migration rewrites every older order: first a dry run, then the run");
    const odm::MigrationReport dry = odm::Migration<OrderV3>(db).dry_run().run();
    const auto at_v2 = odm::Filter<OrderV3>::raw(odm::Document::from_json(R"({"schema_version": 2})"));
    example::check(dry.migrated == 2 && v3.count(at_v2) == 0, "the dry run counts 2 orders and writes nothing");
    const odm::MigrationReport report =
        odm::Migration<OrderV3>(db)
            .batch_size(100)
            .on_progress([](const odm::MigrationProgress& p) {
              std::cout << "  " << p.done << " of " << p.to_do << " done, " << p.rate() << "/s\n";
            })
            .run();
    example::show("stored", v3.find_one<odm::Document>(odm::field(&OrderV3::id) == 2).value());
    example::check(report.migrated == 2 && v3.count(at_v2) == 2 && odm::Migration<OrderV3>(db).run().migrated == 0,
                   "both orders migrated; a second run has nothing to do");

    example::step("a rename while v1 runs: v2 writes both names; v1 changes the old one; v2 reads and finds it");
    auto customers_v1 = db.collection<Customer>();
    auto customers_v2 = db.collection<CustomerV2>();
    customers_v1.drop();
    customers_v2.insert_one(CustomerV2{1, "555-0100"});
    Customer seen = customers_v1.get_by_id(1);
    seen.phone = "555-0199";
    customers_v1.replace_one(odm::field(&Customer::id) == 1, seen);
    example::show("stored", customers_v2.find_one<odm::Document>(odm::field(&CustomerV2::id) == 1).value());
    example::check(customers_v2.get_by_id(1).contact == "555-0199" &&
                       customers_v2.count(odm::field(&CustomerV2::contact) == "555-0199") == 1,
                   "v2 reads v1's change and its typed filter finds it");

    example::step("the contract, once no v1 is left: a migration moves \"phone\" to \"contact\"");
    (void)odm::Migration<CustomerV3>(db).run();
    auto customers_v3 = db.collection<CustomerV3>();
    const odm::Document contracted = customers_v3.find_one<odm::Document>(odm::field(&CustomerV3::id) == 1).value();
    example::show("stored", contracted);
    example::check(customers_v3.get_by_id(1).contact == "555-0199" &&
                       contracted.to_json().find("phone") == std::string::npos,
                   "the old name is gone, the value kept");
    customers_v1.drop();
  });
}
