#pragma once
// The models the fuzz targets decode into: between them, every kind of member odm maps
// (scalars, enums by name and by number, every date type, optional, vector, std::array,
// map, variant, Embedded, the money types, Decimal, Binary, ObjectId, LocalTime, Ref,
// ParentRef, RefMany, Subset, strict and renamed models), and recursive ones (a tree of
// vectors, a tree of maps, the expression tree whose variant's alternatives both recurse).

#include <odm/odm.hpp>

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace fuzz_models {

enum class Color { red, green, blue };
enum class Level : std::int32_t { low = 1, high = 2 };

struct Address {
  std::string street;
  std::string city;
};

struct Publisher {
  std::string id;
  std::string name;
};

struct Part {
  odm::ObjectId id;
  std::string name;
};

struct Category {
  std::string id;
  odm::ParentRef<Category> parent;
  odm::RefMany<Category> children;
};

struct Review {
  std::int32_t review_id;
  std::string author;
  std::chrono::sys_days published_date;
  struct odm_model {
    static constexpr auto key = &Review::review_id;
  };
};

/// Every kind of member.
struct Everything {
  odm::ObjectId id;
  bool flag;
  std::int32_t i32;
  std::int16_t i16;
  std::int64_t i64;
  double d;
  std::string s;
  Color color;
  Level level;
  std::chrono::system_clock::time_point when;
  std::chrono::sys_days day;
  std::chrono::sys_time<std::chrono::milliseconds> ms;
  std::optional<std::string> maybe;
  std::optional<std::int32_t> absent;
  std::vector<std::int32_t> numbers;
  std::vector<std::vector<std::string>> grid;
  std::vector<bool> bits;
  std::array<std::int32_t, 3> triple;
  std::map<std::string, std::int32_t> counts;
  std::map<std::string, Address> places;
  std::variant<std::string, std::vector<std::string>> author;
  std::variant<Address, Publisher, std::int64_t> either;
  odm::Embedded<Address> address;
  std::vector<odm::Embedded<Address>> addresses;
  odm::Binary blob;
  odm::Decimal exact;
  odm::Money price;
  odm::ScaledAmount<100> cents;
  odm::DisplayMoney display;
  odm::DecimalFromLegacy<100> legacy;
  odm::LocalTime local;
  odm::Ref<Publisher> publisher;
  odm::ParentRef<Category> category;
  odm::RefMany<Part> parts;
  odm::Subset<Review, 3, &Review::published_date> reviews;
};

/// Strict, with renamed members: unknown fields are errors.
struct Strict {
  std::int64_t id;
  std::string title;
  std::optional<std::string> subtitle;
  struct odm_model {
    static constexpr auto fields = odm::fields(odm::rename(&Strict::title, "book_title"));
    static constexpr bool strict = true;
  };
};

/// Declares almost nothing: everything else is skipped, and must still be checked.
struct Sparse {
  std::optional<std::int32_t> n;
};

struct Node {
  std::vector<Node> children;
};

struct Tree {
  std::optional<std::string> label;
  std::map<std::string, Tree> children;
};

struct Expr;
struct Leaf {
  std::int32_t value;
};
struct Sum {
  std::vector<Expr> terms;
  std::string op;
};
struct Scaled {
  double factor;
  std::vector<Expr> terms;
};
struct Expr {
  std::variant<Leaf, Sum, Scaled, std::optional<std::string>> node;
};

}  // namespace fuzz_models
