#pragma once
// The models every compile-fail case uses. Each case (tests/compile_fail/*.cpp) is a pair:
// built with -DODM_COMPILE_FAIL it must be refused with the message on its first line;
// built without, its twin must compile, so a case cannot pass because of an unrelated
// error (check.cmake builds both).

#include <odm/odm.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cf {

struct Address {
  std::string city;
};

struct Checkout {
  std::string by;
};

struct Book {
  std::int32_t id;
  std::string title;
  std::int32_t available;
  std::vector<std::string> topics;
  std::vector<Address> addresses;
  Address home;
  std::optional<std::string> note;
  std::vector<Checkout> checkout;
};

/// A projection of Book.
struct Summary {
  std::string title;
  std::int32_t available;
};

struct Host {
  odm::ObjectId id;
  std::string name;
};

struct LogMessage {
  odm::ObjectId id;
  std::chrono::sys_time<std::chrono::milliseconds> time;
  odm::ParentRef<Host> host;
};

struct Product {
  std::int64_t id;
  std::string name;
};

/// A line item embedded in an order, with its reference to a product.
struct LineItem {
  odm::Ref<Product> product;
  std::int32_t quantity;
};

struct Order {
  std::int64_t id;
  std::vector<odm::Embedded<LineItem>> items;
  std::string note;
};

}  // namespace cf
