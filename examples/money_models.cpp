// Money (seed 002), in each of the guide's models:
//   - decimal: gas prices with `price: NumberDecimal("2.099")`, queried by equality;
//   - scale factor: clothes priced in whole cents, `price: NumberLong(1999)` for 19.99;
//   - non-numeric: `{display: "9.99", approx: 9.99, currency: "USD"}`, the string exact;
//   - migration: clothes stored by an older application as NumberLong cents or as
//     decimal strings, read with odm::DecimalFromLegacy<100> and written back as
//     Decimal128, the guide's "application logic" conversion.
// No price is ever a double: odm's money types do not convert from or to one.
//
// `clothes` goes through the models one after the other and is left migrated: every
// price a NumberDecimal, as the seed's collection is after its conversion.
#include "example_support.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace {

using odm::Decimal;

struct GasPrice {
  std::int32_t id;
  std::chrono::system_clock::time_point date;
  Decimal price;
  std::string station;
  std::string grade;
  bool operator==(const GasPrice&) const = default;
  struct odm_model {
    static constexpr std::string_view collection = "gasprices";
  };
};

/// Scale factor: cents, stored as NumberLong.
struct ClothesInCents {
  std::int32_t id;
  std::string description;
  std::string size;
  odm::ScaledAmount<100> price;
  bool operator==(const ClothesInCents&) const = default;
  struct odm_model {
    static constexpr std::string_view collection = "clothes";
  };
};

/// Non-numeric: the seed's `{price: {display, approx, currency}, fee: {...}}`.
struct PriceAndFee {
  odm::ObjectId id;
  odm::DisplayMoney price;
  odm::DisplayMoney fee;
  bool operator==(const PriceAndFee&) const = default;
  struct odm_model {
    static constexpr std::string_view collection = "clothes";
  };
};

/// During the migration: reads cents, strings or Decimal128, always writes Decimal128.
struct MigratingClothes {
  std::int32_t id;
  std::string description;
  std::string size;
  odm::DecimalFromLegacy<100> price;
  struct odm_model {
    static constexpr std::string_view collection = "clothes";
  };
};

/// After the migration: Decimal128 only (a legacy shape would be a DecodeError).
struct Clothes {
  std::int32_t id;
  std::string description;
  std::string size;
  Decimal price;
  bool operator==(const Clothes&) const = default;
  struct odm_model {
    static constexpr std::string_view collection = "clothes";
  };
};

/// The seed's `{price: 9990, currency: "USD"}`: 9.99 USD at a scale factor of 1000.
struct ScaledPrice {
  odm::ScaledAmount<1000> price;
  std::string currency;
};

struct Row {
  std::int32_t id;
  const char* description;
  const char* size;
  std::int64_t cents;
  const char* decimal;
};
constexpr Row kClothes[] = {
    {1, "T-Shirt", "M", 1999, "19.99"},     {2, "Jeans", "36", 3999, "39.99"},
    {3, "Shorts", "32", 2999, "29.99"},     {4, "Cool T-Shirt", "L", 2495, "24.95"},
    {5, "Designer Jeans", "30", 8000, "80.00"},
};

}  // namespace

int main() {
  using example::check;
  return example::run([] {
    const odm::Client client = example::connect();
    const odm::Database db = example::examples_db(client);
    auto gasprices = db.collection<GasPrice>();
    gasprices.drop();
    db.collection<Clothes>().drop();

    // ---- decimal --------------------------------------------------------------------
    example::step("decimal: db.gasprices.insert({_id: 1, date: ISODate(), price: NumberDecimal(\"2.099\"), ...})");
    const GasPrice regular{1, example::now(), Decimal("2.099"), "Quikstop", "regular"};
    gasprices.insert_one(regular);
    example::show("stored", regular);
    example::sync_indexes<GasPrice>(db);
    const auto found = gasprices.find(odm::field(&GasPrice::price) == Decimal("2.099")).to_vector();
    example::show_all("find({price: NumberDecimal(\"2.099\")})", found);
    check(found.size() == 1 && found[0] == regular, "the equality query finds the gas price, exactly as stored");
    check(found[0].price.to_string() == "2.099" && found[0].price.same_representation(Decimal("2.099")),
          "the price is the decimal 2.099, digit for digit");
    check(gasprices.count(odm::field(&GasPrice::price) == Decimal("2.1")) == 0, "2.1 is not 2.099");

    // ---- scale factor ---------------------------------------------------------------
    example::step("scale factor: clothes priced in cents, price: NumberLong(1999)");
    auto in_cents = db.collection<ClothesInCents>();
    std::vector<ClothesInCents> cents;
    for (const Row& row : kClothes)
      cents.push_back(ClothesInCents{row.id, row.description, row.size, odm::ScaledAmount<100>(Decimal(row.decimal))});
    in_cents.insert_many(cents);
    const auto cents_back = in_cents.find({}, odm::FindOptions<ClothesInCents>{}.sort(odm::sort(odm::asc(&ClothesInCents::id)))).to_vector();
    example::show_all("read", cents_back);
    check(cents_back == cents, "the clothes read back as stored");
    check(cents_back[0].price.units() == 1999 && cents_back[0].price.to_decimal().to_string() == "19.99",
          "the T-Shirt costs 1999 cents, exactly 19.99");
    const auto over_25 = in_cents.count(odm::field(&ClothesInCents::price) > odm::ScaledAmount<100>::from_units(2500));
    check(over_25 == 3, "three cost more than 25.00 (compared as integers on the server)");
    bool refused = false;
    try {
      (void)odm::ScaledAmount<100>(Decimal("19.995"));
    } catch (const odm::ValueError& error) {
      refused = true;
      std::cout << "19.995 in cents: " << error.what() << "\n";
    }
    check(refused, "a price finer than a cent is refused, never rounded");
    const ScaledPrice thousandths{odm::ScaledAmount<1000>(Decimal("9.99")), "USD"};
    example::show("9.99 USD at 1/1000 (not stored)", thousandths);
    check(thousandths.price.units() == 9990, "{price: 9990, currency: \"USD\"}");

    // ---- non-numeric ----------------------------------------------------------------
    example::step("non-numeric: {display: \"9.99\", approx: 9.99, currency: \"USD\"}");
    auto displayed = db.collection<PriceAndFee>();
    PriceAndFee price_and_fee{{}, odm::DisplayMoney(Decimal("9.99"), "USD"), odm::DisplayMoney(Decimal("0.25"), "USD")};
    displayed.insert_one(price_and_fee);
    example::show("stored", price_and_fee);
    const PriceAndFee display_back = displayed.get_by_id(price_and_fee.id);
    example::show("read", display_back);
    check(display_back == price_and_fee && display_back.price.display() == "9.99" && display_back.fee.display() == "0.25",
          "display is the exact value; approx only serves range queries");
    check((display_back.price.money() + display_back.fee.money()) == odm::Money("10.24", "USD"),
          "price + fee is exactly 10.24 USD");
    displayed.delete_one(odm::field(&PriceAndFee::id) == price_and_fee.id);

    // ---- migration ------------------------------------------------------------------
    example::step("migration: an older application stored cents and strings (raw Extended JSON)");
    db.collection<Clothes>().drop();
    // The escape hatch: a raw insert command, exactly the legacy documents.
    const odm::Document legacy = odm::Document::from_json(R"({"insert": "clothes", "documents": [
      {"_id": 1, "description": "T-Shirt", "size": "M", "price": {"$numberLong": "1999"}},
      {"_id": 2, "description": "Jeans", "size": "36", "price": {"$numberLong": "3999"}},
      {"_id": 3, "description": "Shorts", "size": "32", "price": {"$numberLong": "2999"}},
      {"_id": 4, "description": "Cool T-Shirt", "size": "L", "price": "24.95"},
      {"_id": 5, "description": "Designer Jeans", "size": "30", "price": "80.00"}]})");
    db.run_command(legacy);
    auto migrating = db.collection<MigratingClothes>();
    const auto raw_before = migrating.find<odm::Document>().to_vector();
    for (const auto& document : raw_before) example::show("legacy", document);
    check(raw_before.size() == 5, "five legacy documents");

    example::step("read them with DecimalFromLegacy<100>, write back those that were legacy");
    int rewritten = 0;
    for (const MigratingClothes& item : migrating.find().to_vector()) {
      std::cout << item.id << " " << item.description << ": " << item.price.value().to_string()
                << (item.price.was_legacy() ? " (legacy shape)" : "") << "\n";
      if (!item.price.was_legacy()) continue;
      const auto result = migrating.replace_one(odm::field(&MigratingClothes::id) == item.id, item);
      rewritten += static_cast<int>(result.modified);
    }
    check(rewritten == 5, "all five documents were rewritten");

    example::step("read the migrated collection with a Decimal-only model");
    const auto migrated = db.collection<Clothes>().find({}, odm::FindOptions<Clothes>{}.sort(odm::sort(odm::asc(&Clothes::id)))).to_vector();
    example::show_all("migrated", migrated);
    check(migrated.size() == 5, "five clothes");
    for (std::size_t i = 0; i < migrated.size(); ++i) {
      const Row& row = kClothes[i];
      check(migrated[i] == Clothes{row.id, row.description, row.size, Decimal(row.decimal)} &&
                migrated[i].price.same_representation(Decimal(row.decimal)),
            std::string(row.description) + " costs NumberDecimal(\"" + row.decimal + "\")");
    }
    check(migrating.find().to_vector().front().price.was_legacy() == false, "nothing legacy is left");
  });
}
