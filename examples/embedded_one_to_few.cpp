// Embedded one-to-few (seeds 000 and 001): a patron has a handful of addresses, read
// with the patron and never on their own, so they are an array of sub-documents inside
// the patron document rather than documents of an `address` collection with a
// `patron_id` each. One read returns everything; the array stays small.
//
//   db.patron.insertOne({_id: "joe", name: "Joe Bookreader", addresses: [{...}, {...}]})
//   db.patron.find({"addresses.city": "Boston"})
#include "example_support.hpp"

#include <optional>
#include <string>
#include <vector>

namespace {

struct Address {
  std::string street;
  std::string city;
  std::string state;
  std::string zip;
  bool operator==(const Address&) const = default;
};

struct Patron {
  std::string id;
  std::string name;
  std::vector<odm::Embedded<Address>> addresses;
  bool operator==(const Patron&) const = default;
  struct odm_model {
    static constexpr std::string_view collection = "patron";
    // Patrons are looked up by the city of any of their addresses: a multikey index on
    // a field inside the array.
    static constexpr auto indexes = odm::indexes(odm::index("addresses.city"));
  };
};

/// The patron's name and nothing else: {name: 1, _id: 0}.
struct PatronName {
  std::string name;
};

}  // namespace

int main() {
  using example::check;
  return example::run([] {
    const odm::Client client = example::connect();
    const odm::Database db = example::examples_db(client);
    auto patrons = db.collection<Patron>();
    patrons.drop();

    example::step("store the patron with both addresses embedded");
    const Patron joe{"joe",
                     "Joe Bookreader",
                     {Address{"123 Fake Street", "Faketon", "MA", "12345"},
                      Address{"1 Some Other Street", "Boston", "MA", "12345"}}};
    patrons.insert_one(joe);
    example::show("stored", joe);
    example::sync_indexes<Patron>(db);

    example::step("one query returns the patron and every address");
    const Patron back = patrons.get_by_id("joe");
    example::show("read", back);
    check(back == joe, "the patron reads back exactly as stored");
    check(back.addresses.size() == 2 && back.addresses[1]->city == "Boston", "both addresses, in order");

    example::step("find patrons by a field of any of their addresses: {\"addresses.city\": \"Boston\"}");
    const auto in_boston = patrons.find(odm::field(&Patron::addresses) / &Address::city == "Boston").to_vector();
    example::show_all("in Boston", in_boston);
    check(in_boston.size() == 1 && in_boston[0].id == "joe", "joe has an address in Boston");
    check(patrons.count(odm::field(&Patron::addresses) / &Address::city == "Springfield") == 0,
          "nobody has an address in Springfield");

    example::step("one address meeting two conditions at once: $elemMatch");
    const auto match = patrons.find_one<PatronName>(odm::field(&Patron::addresses).elem_match([](auto address) {
      return address / &Address::city == "Faketon" && address / &Address::street == "123 Fake Street";
    }));
    check(match.has_value(), "$elemMatch finds the patron");
    example::show("name only", *match);
    check(match->name == "Joe Bookreader", "the projection read the name");
  });
}
