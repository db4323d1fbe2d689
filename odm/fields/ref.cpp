// References' messages, compiled once.
#include <odm/fields/ref.hpp>

namespace odm::detail {

std::string describe_id(const ReferenceId& id) {
  struct Describe {
    std::string operator()(std::monostate) const { return "null"; }
    std::string operator()(const ObjectId& v) const { return "ObjectId(\"" + v.to_string() + "\")"; }
    std::string operator()(const std::string& v) const { return "\"" + v + "\""; }
    std::string operator()(std::int64_t v) const { return std::to_string(v); }
    std::string operator()(std::int32_t v) const { return std::to_string(v); }
    std::string operator()(const EncodedId& v) const { return v.to_json(); }
  };
  return std::visit(Describe{}, id);
}

void throw_no_id(const ReferenceId& id) {
  if (std::holds_alternative<std::monostate>(id))
    throw UsageError("Ref::id: the reference was never given an id (check has_parent() for a ParentRef)");
  throw UsageError("Ref::id: the reference holds an id of another type than its target's: " + describe_id(id));
}

[[noreturn]] void throw_not_loaded(const ReferenceId& id, Resolution state) {
  if (state == Resolution::dangling)
    throw NotLoadedError("the reference to " + describe_id(id) +
                         " is dangling: no such document was found when it was resolved");
  throw NotLoadedError("the reference to " + describe_id(id) +
                       " was not resolved; resolve it with a join (e.g. .with(&Model::field)) before reading its target");
}

void encode_reference_id(bson_t* parent, std::string_view key, const ReferenceId& id) {
  std::visit(
      [&](const auto& value) {
        using V = std::remove_cvref_t<decltype(value)>;
        if constexpr (std::same_as<V, std::monostate>)
          check_append(bson_append_null(parent, key.data(), key_length(key)));
        else if constexpr (std::same_as<V, EncodedId>)
          value.append_to(parent, key);
        else
          codec<V>::encode(parent, key, value);
      },
      id);
}

}  // namespace odm::detail
