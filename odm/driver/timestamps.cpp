// How writes keep a model's timestamps (odm/driver/timestamps.hpp).

#include "query/update_paths.hpp"

#include <odm/bson/codec.hpp>
#include <odm/driver/timestamps.hpp>

namespace odm::detail {

namespace {

/// `update` with `{name: now}` added to its operator `op`, unless the update writes `name`.
Document with_stamp_in(Document update, std::string_view op, std::string_view name, StampTime now) {
  if (name.empty() || !operator_writing(update.get(), name).empty()) return update;
  Document field;
  check_append(bson_append_date_time(field.get_mutable(), name.data(), key_length(name),
                                     now.time_since_epoch().count()));
  return with_fields_added_to(update.get(), op, field.get());
}

}  // namespace

bool update_writes(const bson_t* update, std::string_view name) { return !operator_writing(update, name).empty(); }

Document with_stamps(const bson_t* update, std::string_view updated, std::string_view created, StampTime now) {
  Document out = with_stamp_in(Document::copy_of(update), "$set", updated, now);
  return with_stamp_in(std::move(out), "$setOnInsert", created, now);
}

}  // namespace odm::detail
