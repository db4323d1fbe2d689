// How a model says how it is stored: renamed fields, strict decoding, a model declared
// outside a type you cannot edit, enums by name, optional fields, exact money.
#include <odm/odm.hpp>

#include <iostream>
#include <optional>
#include <string>

namespace vendor {  // a type from a library you cannot edit
struct Point {
  double x;
  double y;
};
}  // namespace vendor

enum class Language { English, French };

struct Book {
  std::int64_t id;  // stored as _id
  std::string title;
  Language language;
  std::optional<std::string> subtitle;  // nullopt is stored as null
  odm::Money price;
  struct odm_model {
    static constexpr auto fields = odm::fields(odm::rename(&Book::title, "book_title"));
    static constexpr bool strict = true;  // unknown fields are a DecodeError
  };
};

template <>
struct odm::model<vendor::Point> {
  static constexpr auto fields = odm::fields(odm::rename(&vendor::Point::x, "lon"), odm::rename(&vendor::Point::y, "lat"));
};

int main() {
  const Book book{123456789, "MongoDB: The Definitive Guide", Language::English, std::nullopt,
                  odm::Money("39.99", "USD")};
  const std::string json = odm::to_json(book);
  std::cout << json << "\n";
  // { "_id" : 123456789, "book_title" : "MongoDB: The Definitive Guide", "language" : "English",
  //   "subtitle" : null, "price" : { "value" : { "$numberDecimal" : "39.99" }, "currency" : "USD" } }
  if (odm::from_json<Book>(json).price != book.price) return 1;

  std::cout << odm::to_json(vendor::Point{-71.5, 42.25}) << "\n";  // { "lon" : -71.5, "lat" : 42.25 }

  try {
    odm::from_json<Book>(R"({"_id": 1, "book_title": "x", "language": "English", "price": {"value": {"$numberDecimal": "1"}, "currency": "USD"}, "isbn": "0"})");
    return 1;
  } catch (const odm::DecodeError& e) {
    std::cout << e.what() << "\n";  // isbn: unknown field (the model is strict)
  }
  try {
    odm::from_json<Book>(R"({"_id": 1, "book_title": "x", "language": "Klingon", "price": {"value": {"$numberDecimal": "1"}, "currency": "USD"}})");
    return 1;
  } catch (const odm::DecodeError& e) {
    std::cout << e.what() << "\n";  // language: "Klingon" is not a name of this enum
  }
}
