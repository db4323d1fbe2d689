// One-to-many with child references (seed 004): a product is made of parts that exist
// on their own (sold as spare parts, shared between products), so the product keeps
// an array of part ids, and its parts come back in one `{_id: {$in: product.parts}}`:
//
//   > product = db.products.findOne({catalog_number: 1234});
//   > product_parts = db.parts.find({_id: { $in : product.parts } } ).toArray() ;
//
// The seed shows the part 'AAAA' in full and abbreviates ObjectIds to two bytes; here
// they are 12-byte ids ending in the seed's digits. Parts F17C and D2AA, which the seed
// only lists, are given names of their own.
//
// Money is never a double: the seed writes `cost: 0.94, price: 3.99`, which the shell
// stores as binary floating point, and 0.94 has no exact double (it is stored as
// 0.939999999999999946709294817992...). As the guides' money chapter recommends, `cost`
// and `price` are odm::Decimal here, stored as NumberDecimal("0.94") and
// NumberDecimal("3.99"), exact to the cent; sums and margins stay exact too.
#include "example_support.hpp"

#include <odm/join/join.hpp>

#include <cstdint>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

namespace {

struct Part {
  odm::ObjectId id;
  std::string partno;
  std::string name;
  std::int32_t qty;
  odm::Decimal cost;   // NumberDecimal, never double (see the top of this file)
  odm::Decimal price;
  bool operator==(const Part&) const = default;
  struct odm_model {
    static constexpr std::string_view collection = "parts";
  };
};

struct Product {
  odm::ObjectId id;  // not in the seed's listing; the server would add one anyway
  std::string name;
  std::string manufacturer;
  std::int32_t catalog_number;
  odm::RefMany<Part> parts;
  struct odm_model {
    static constexpr std::string_view collection = "products";
    static constexpr auto indexes = odm::indexes(odm::index(&Product::catalog_number).unique());
  };
};

}  // namespace

int main() {
  using example::check;
  using example::oid;
  return example::run([] {
    const odm::Client client = example::connect();
    const odm::Database db = example::examples_db(client);
    auto parts = db.collection<Part>();
    auto products = db.collection<Product>();
    parts.drop();
    products.drop();

    example::step("store the parts, then the product with their ids");
    const odm::ObjectId aaaa = oid("00000000000000000000aaaa");
    const odm::ObjectId f17c = oid("00000000000000000000f17c");
    const odm::ObjectId d2aa = oid("00000000000000000000d2aa");
    const std::vector<Part> stored_parts{
        Part{aaaa, "123-aff-456", "#4 grommet", 94, odm::Decimal("0.94"), odm::Decimal("3.99")},
        Part{f17c, "123-aff-457", "#6 grommet", 50, odm::Decimal("1.06"), odm::Decimal("4.49")},
        Part{d2aa, "987-bcd-123", "smoke shifter lever", 12, odm::Decimal("2.50"), odm::Decimal("9.99")},
    };
    parts.insert_many(stored_parts);
    example::show_all("parts", stored_parts);
    Product shifter;
    shifter.name = "left-handed smoke shifter";
    shifter.manufacturer = "Acme Corp";
    shifter.catalog_number = 1234;
    shifter.parts = odm::RefMany<Part>(std::vector<odm::ObjectId>{aaaa, f17c, d2aa});
    products.insert_one(shifter);  // assigns shifter.id
    example::show("product", shifter);
    example::sync_indexes<Part, Product>(db);

    example::step("the seed's two queries: the product, then {_id: {$in: product.parts}}");
    const std::optional<Product> product = products.find_one(odm::field(&Product::catalog_number) == 1234);
    check(product.has_value(), "the product is found by catalog_number");
    example::show("product", *product);
    check(product->parts.ids() == std::vector<odm::ObjectId>{aaaa, f17c, d2aa}, "it lists its three part ids in order");
    const auto product_parts = parts.find(odm::field(&Part::id).in(product->parts.ids())).to_vector();
    example::show_all("product_parts", product_parts);
    check(product_parts.size() == 3, "the $in query returns the three parts");

    example::step("the same join through odm::resolve: one $in query for a whole list of products");
    std::vector<Product> list = products.find().to_vector();
    odm::resolve(db, list, odm::with(&Product::parts));
    check(list.size() == 1 && list[0].parts.is_loaded(), "the parts were resolved");
    for (std::size_t i = 0; i < list[0].parts.size(); ++i) example::show("  parts[" + std::to_string(i) + "] ->", list[0].parts[i]);
    check(list[0].parts[0] == stored_parts[0], "the first part is the seed's #4 grommet, as stored");
    check(list[0].parts[0].price == odm::Decimal("3.99") && list[0].parts[0].qty == 94, "with its price and quantity");
    check(list[0].parts[0].price.to_string() == "3.99" && list[0].parts[2].cost.to_string() == "2.50",
          "prices and costs come back digit for digit (2.50 keeps its trailing zero)");
    odm::Decimal margin("0");
    for (std::size_t i = 0; i < list[0].parts.size(); ++i) margin = margin + (list[0].parts[i].price - list[0].parts[i].cost);
    std::cout << "margin on one set of parts: " << margin.to_string() << "\n";
    check(margin.to_string() == "13.97", "the margin over the three parts is exactly 13.97, in cents");
    check(list[0].parts[1].id == f17c && list[0].parts[2].id == d2aa, "the parts come in the product's order");
  });
}
