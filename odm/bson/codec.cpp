// The codec's helpers that are not on its fast path (error messages), compiled once.
#include <odm/bson/codec.hpp>
#include <odm/bson/containers.hpp>
#include <odm/bson/record.hpp>

#include <algorithm>

namespace odm::detail {

std::string quoted(std::string_view text) {
  constexpr std::size_t limit = 64;
  std::string out = "\"";
  out.append(text.substr(0, limit));
  if (text.size() > limit) out += "...";
  out += '"';
  return out;
}

std::string shown_key(const char* key, std::size_t length) {
  constexpr std::size_t limit = 64;
  std::string out(key, std::min(length, limit));
  if (length > limit) out += "...";
  return out;
}

[[noreturn]] void throw_unexpected_type(const bson_iter_t& it, std::string_view expected) {
  std::string message = "expected ";
  message += expected;
  message += ", got ";
  message += bson_type_name(bson_iter_type(&it));
  throw DecodeError(std::move(message));
}

std::string type_names(type_mask mask) {
  if (mask == any_type) return "any type";
  std::string out;
  for (unsigned code = 1; code <= 0xFF; ++code) {
    const auto type = static_cast<bson_type_t>(code);
    if (type_bit(type) == 0 || (mask & type_bit(type)) == 0) continue;
    if (!out.empty()) out += " or ";
    out += bson_type_name(type);
  }
  return out;
}

}  // namespace odm::detail

namespace odm::detail {

bool children_fit(const bson_iter_t& it, type_mask types, std::string& why) {
  if (types == any_type) return true;
  bson_iter_t child = recurse(it);
  while (next(child)) {
    if ((types & type_bit(bson_iter_type(&child))) == 0) {
      why = shown_key(bson_iter_key(&child), bson_iter_key_len(&child)) + ": expected " +
            type_names(types) + ", got " + std::string(bson_type_name(bson_iter_type(&child)));
      return false;
    }
  }
  return true;
}

bool container_fits(const bson_iter_t& it, bson_type_t type, type_mask child_types, std::string& why) {
  if (bson_iter_type(&it) != type) {
    why = "expected " + std::string(bson_type_name(type)) + ", got " + std::string(bson_type_name(bson_iter_type(&it)));
    return false;
  }
  return children_fit(it, child_types, why);
}

}  // namespace odm::detail

namespace odm::detail {

void throw_malformed_at(std::uint32_t offset) {
  throw DecodeError("malformed BSON at byte " + std::to_string(offset));
}

void throw_integer_out_of_range(std::int64_t value, std::size_t bits) {
  throw DecodeError("value " + std::to_string(value) + " does not fit a " + std::to_string(bits) + "-bit integer");
}

void throw_inexact_double(std::int64_t value) {
  throw DecodeError("long value " + std::to_string(value) + " cannot be held exactly by a double");
}

void throw_date_out_of_range(std::int64_t ms) {
  throw DecodeError("date " + std::to_string(ms) + " ms is out of this time point's range");
}

void throw_date_off_grid(std::int64_t ms, std::int64_t grid) {
  throw DecodeError("date " + std::to_string(ms) + " ms is not a whole number of the member's time unit (" +
                    std::to_string(grid) + " ms); declare it as std::chrono::system_clock::time_point");
}

void throw_no_alternative(std::size_t alternatives, const bson_iter_t& it, const std::string& reasons) {
  throw DecodeError("none of the variant's " + std::to_string(alternatives) + " alternatives fits the stored " +
                    std::string(bson_type_name(bson_iter_type(&it))) + " (" + reasons + ")");
}

}  // namespace odm::detail

namespace odm::detail {

std::string unknown_field_reason(const char* key, std::size_t length) {
  return shown_key(key, length) + ": unknown field (the model is strict)";
}

std::string field_type_reason(std::string_view name, type_mask expected, bson_type_t got) {
  return std::string(name) + ": expected " + type_names(expected) + ", got " + std::string(bson_type_name(got));
}

std::string missing_field_reason(std::string_view name) { return std::string(name) + ": missing required field"; }

}  // namespace odm::detail
