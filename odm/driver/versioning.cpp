// How writes move a model's version member (odm/driver/versioning.hpp).

#include "query/update_paths.hpp"

#include <odm/bson/codec.hpp>
#include <odm/driver/versioning.hpp>
#include <odm/error.hpp>

#include <string>

namespace odm::detail {

Document with_version_moved(const bson_t* update, std::string_view name) {
  Document one;
  check_append(bson_append_int64(one.get_mutable(), name.data(), static_cast<int>(name.size()), 1));
  return with_fields_added_to(update, "$inc", one.get());
}

bool writes_version_itself(const bson_t* update, std::string_view name, const char* operation) {
  const std::string_view op = operator_writing(update, name);
  if (op == "$setOnInsert")
    throw UsageError(std::string(operation) + ": the update's $setOnInsert writes the version member '" +
                     std::string(name) +
                     "', which odm increments on every write (an inserted document starts at version 1); leave it "
                     "out, or pass keep_version() to send the update as written");
  return !op.empty();
}

}  // namespace odm::detail
