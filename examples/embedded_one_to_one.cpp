// Embedded one-to-one (seed 000): the client's address is read whenever the client is,
// so it lives inside the client document as a sub-document, not in a collection of its own.
//
//   db.client.insertOne({_id: "joe", name: "Joe Bookreader",
//                        address: {street: "123 Fake Street", city: "Faketon", state: "MA", zip: "12345"}})
//   db.client.findOne({"address.city": "Faketon"}, {name: 1, address: 1})
#include "example_support.hpp"

#include <optional>
#include <string>

namespace {

struct Address {
  std::string street;
  std::string city;
  std::string state;
  std::string zip;
  bool operator==(const Address&) const = default;
};

struct Client {
  std::string id;  // stored as _id
  std::string name;
  odm::Embedded<Address> address;
  bool operator==(const Client&) const = default;
  struct odm_model {
    static constexpr std::string_view collection = "client";
  };
};

/// Only the address, as `{address: 1, _id: 0}` reads it.
struct ClientAddress {
  odm::Embedded<Address> address;
};

}  // namespace

int main() {
  return example::run([] {
    const odm::Client client = example::connect();
    const odm::Database db = example::examples_db(client);
    auto clients = db.collection<Client>();
    clients.drop();

    example::step("store the client with its address embedded");
    const Client joe{"joe", "Joe Bookreader", Address{"123 Fake Street", "Faketon", "MA", "12345"}};
    clients.insert_one(joe);
    example::show("stored", joe);
    example::sync_indexes<Client>(db);

    example::step("read it back by _id: one query returns the client and the address");
    const Client back = clients.get_by_id("joe");
    example::show("read", back);
    example::check(back == joe, "the client reads back exactly as stored");
    example::check(back.address->city == "Faketon", "the address came with the client");

    example::step("query on the embedded field: {\"address.city\": \"Faketon\"}");
    const auto in_faketon = clients.find(odm::field(&Client::address) / &Address::city == "Faketon").to_vector();
    example::show_all("found", in_faketon);
    example::check(in_faketon.size() == 1 && in_faketon[0].id == "joe", "the dotted-path filter finds joe");

    example::step("read only the address: {address: 1, _id: 0}");
    const std::optional<ClientAddress> address = clients.find_one<ClientAddress>(odm::field(&Client::id) == "joe");
    example::check(address.has_value(), "the projected read found joe");
    example::show("address only", *address);
    example::check(*address->address == *joe.address, "the projection carries the whole embedded address");

    const auto raw = odm::to_bson(joe);
    bson_iter_t it;
    example::check(bson_iter_init_find(&it, raw.get(), "address") && BSON_ITER_HOLDS_DOCUMENT(&it),
                   "the address is stored as a sub-document");
  });
}
