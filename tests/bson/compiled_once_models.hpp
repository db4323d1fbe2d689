#pragma once
// Models whose codecs the unit tests compile once (odm::document_code and
// odm::embedded_code, README "Compiling a model once"): this header declares them,
// compiled_once_instances.cpp defines them, and every other file that includes it calls
// those definitions instead of compiling its own. compiled_once_check.cmake verifies on an
// object file that the declaration does keep a file from compiling them.

#include <odm/odm.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace compiled_once_test {

struct Line {
  std::string sku;
  std::int32_t quantity = 0;
  std::optional<std::string> note;
  friend bool operator==(const Line&, const Line&) = default;
};

struct Order {
  std::int64_t id = 0;
  std::string customer;  // read under its older name "buyer" too
  std::vector<Line> lines;
  odm::Extra extra;
  friend bool operator==(const Order&, const Order&) = default;
  struct odm_model {
    static constexpr auto fields = odm::fields(odm::renamed_from<&Order::customer>("buyer"));
  };
};

}  // namespace compiled_once_test

// Order is stored as a document and inside a Shipment (compiled_once_test.cpp); Line only
// inside an Order.
extern template struct odm::document_code<compiled_once_test::Order>;
extern template struct odm::embedded_code<compiled_once_test::Order>;
extern template struct odm::embedded_code<compiled_once_test::Line>;
