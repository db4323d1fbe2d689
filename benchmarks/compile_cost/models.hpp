#pragma once
// The models of the compile-cost benchmark's service (service.cpp): a header, as a service
// of several files keeps them.
//
// With ODM_COMPILE_COST_RECORDS_ELSEWHERE defined, the header also declares their codecs
// compiled in another file (records.cpp, which defines them): odm::document_code and
// odm::embedded_code, the README's "Compiling a model once". scripts/bench_compile.sh
// measures service.cpp both ways.
#include <odm/odm.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace shop {

using Date = std::chrono::sys_days;
using Instant = std::chrono::system_clock::time_point;

// ---------------------------------------------------------------------------------------
// Models

enum class Format { hardcover, paperback, ebook, audiobook };
enum class Role { author, editor, translator };

struct Address {
  std::string street;
  std::string city;
  std::string country;
  std::optional<std::string> postal_code;
  bool operator==(const Address&) const = default;
};

struct Publisher {
  std::string id;  // "oreilly"
  std::string name;
  std::int32_t founded = 0;
  odm::Embedded<Address> address;
  std::vector<std::string> imprints;
  struct odm_model {
    static constexpr std::string_view collection = "publishers";
    static constexpr auto indexes = odm::indexes(odm::index(&Publisher::name).unique());
  };
};

struct Contribution {
  std::string name;
  Role role = Role::author;
  bool operator==(const Contribution&) const = default;
};

struct Author {
  odm::ObjectId id;
  std::string name;
  std::optional<std::string> biography;
  std::map<std::string, std::string> links;  // "site" -> URL
  odm::LocalTime joined;
  struct odm_model {
    static constexpr std::string_view collection = "authors";
    static constexpr auto indexes = odm::indexes(odm::index(&Author::name));
  };
};

struct Category;

struct Book {
  std::int64_t id;  // the ISBN as a number
  std::string title;
  std::optional<std::string> subtitle;
  /// One name, or a list of contributions with their roles.
  std::variant<std::string, std::vector<Contribution>> credits;
  Date published;
  std::int32_t pages = 0;
  Format format = Format::paperback;
  odm::Money price;
  odm::Decimal list_price;  // the price's amount, for range queries
  std::int32_t available = 0;
  std::vector<std::string> topics;
  odm::Ref<Publisher> publisher_id;
  odm::RefMany<Author> authors;
  odm::Ref<Category> category;
  struct odm_model {
    static constexpr std::string_view collection = "books";
    static constexpr auto indexes =
        odm::indexes(odm::index(&Book::publisher_id), odm::index(&Book::topics),
                     odm::index(&Book::category, odm::key(&Book::published, odm::descending)),
                     odm::index(&Book::title).named("title_unique").unique());
  };
};

/// The list view of a book: only these fields are fetched.
struct BookSummary {
  std::int64_t id;
  std::string title;
  odm::Money price;
};

struct Category {
  std::string id;  // "Databases"
  std::string label;
  odm::ParentRef<Category> parent;  // null for the root
  std::int32_t position = 0;
  struct odm_model {
    static constexpr std::string_view collection = "categories";
  };
};

struct Product;

struct Review {
  std::int32_t review_id;
  odm::ParentRef<Product> product_id;
  std::string review_author;
  std::string review_text;
  std::int32_t stars = 0;
  Date published_date;
  struct odm_model {
    static constexpr std::string_view collection = "reviews";
    static constexpr auto key = &Review::review_id;
  };
};

struct Dimensions {
  double width_cm = 0;
  double height_cm = 0;
  double depth_cm = 0;
  std::int32_t weight_g = 0;
  bool operator==(const Dimensions&) const = default;
};

struct Product {
  std::int32_t id;
  std::string name;
  std::string description;
  odm::Money price;
  odm::Decimal tax_rate;
  std::optional<odm::Embedded<Dimensions>> dimensions;
  std::vector<std::string> tags;
  odm::Ref<Book> book;
  Instant updated_at;
  odm::Subset<Review, 10, &Review::published_date> reviews;
  struct odm_model {
    static constexpr std::string_view collection = "products";
    static constexpr auto indexes = odm::indexes(odm::index(&Product::tags), odm::index(&Product::book).sparse());
  };
};

/// The product page's header, without the embedded reviews.
struct ProductHeader {
  std::int32_t id;
  std::string name;
  odm::Money price;
};

}  // namespace shop

#ifdef ODM_COMPILE_COST_RECORDS_ELSEWHERE
// Stored as documents (models and projections):
extern template struct odm::document_code<shop::Publisher>;
extern template struct odm::document_code<shop::Author>;
extern template struct odm::document_code<shop::Book>;
extern template struct odm::document_code<shop::BookSummary>;
extern template struct odm::document_code<shop::Category>;
extern template struct odm::document_code<shop::Review>;
extern template struct odm::document_code<shop::Product>;
extern template struct odm::document_code<shop::ProductHeader>;
// Stored inside them (a Review also inside a Product, its newest ten):
extern template struct odm::embedded_code<shop::Address>;
extern template struct odm::embedded_code<shop::Contribution>;
extern template struct odm::embedded_code<shop::Review>;
extern template struct odm::embedded_code<shop::Dimensions>;
#endif
