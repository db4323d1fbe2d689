// Quick start: plain structs in, BSON and Extended JSON out, and back.
#include <odm/odm.hpp>

#include <iostream>
#include <string>
#include <vector>

struct Address {
  std::string street;
  std::string city;
  std::string state;
  std::string zip;
};

struct Patron {
  std::string id;  // stored as _id
  std::string name;
  std::vector<odm::Embedded<Address>> addresses;
};

int main() {
  const Patron joe{"joe", "Joe Bookreader",
                   {Address{"123 Fake Street", "Faketon", "MA", "12345"},
                    Address{"1 Some Other Street", "Boston", "MA", "12345"}}};

  const odm::Document bson = odm::to_bson(joe);  // owns a bson_t, ready for libmongoc
  std::cout << bson.to_json() << "\n";

  const Patron back = odm::from_bson<Patron>(bson);
  if (back.addresses[1]->city != "Boston") return 1;

  try {
    odm::from_json<Patron>(R"({"_id": "joe", "name": "Joe", "addresses": [{"street": 1}]})");
  } catch (const odm::DecodeError& e) {
    std::cout << e.what() << "\n";  // addresses.0.street: expected string, got int
  }
}
