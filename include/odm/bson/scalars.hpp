#pragma once
// Codecs of the scalar types: bool, integers, double, strings, enums, dates.

#include <odm/bson/codec.hpp>
#include <odm/bson/kind.hpp>
#include <odm/reflect/enums.hpp>

#include <chrono>
#include <concepts>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>

namespace odm {

// bool: BSON boolean.
template <>
struct codec<bool> {
  using kind = kinds::scalar<BSON_TYPE_BOOL>;
  static void encode(bson_t* parent, std::string_view key, bool value) {
    detail::check_append(bson_append_bool(parent, key.data(), detail::key_length(key), value));
  }
  static void decode(const bson_iter_t& it, bool& out) {
    detail::expect_type(it, BSON_TYPE_BOOL, "bool");
    out = bson_iter_bool(&it);
  }
};

namespace detail {
template <class T>
concept small_signed_integer =
    std::signed_integral<T> && !std::same_as<T, char> && !std::same_as<T, bool> && sizeof(T) <= 4;
template <class T>
concept large_signed_integer = std::signed_integral<T> && sizeof(T) == 8;
template <class T>
concept unsigned_integer = std::unsigned_integral<T> && !std::same_as<T, bool> && !std::same_as<T, char>;
}  // namespace detail

// Signed integers up to 32 bits: BSON int32. Decoding also takes an int64 that fits,
// because servers and shells store small whole numbers in either type.
template <detail::small_signed_integer T>
struct codec<T> {
  using kind = kinds::scalar<BSON_TYPE_INT32>;
  static void encode(bson_t* parent, std::string_view key, T value) {
    detail::check_append(bson_append_int32(parent, key.data(), detail::key_length(key), value));
  }
  static void decode(const bson_iter_t& it, T& out) {
    std::int64_t value;
    switch (bson_iter_type(&it)) {
      case BSON_TYPE_INT32: value = bson_iter_int32(&it); break;
      case BSON_TYPE_INT64: value = bson_iter_int64(&it); break;
      default: detail::throw_unexpected_type(it, "int");
    }
    if (value < std::numeric_limits<T>::min() || value > std::numeric_limits<T>::max()) [[unlikely]]
      detail::throw_integer_out_of_range(value, sizeof(T) * 8);
    out = static_cast<T>(value);
  }
};

// 64-bit integers: BSON int64, whatever the value (a small count stays a "long" on the
// wire, so $type queries and other drivers see one type per field).
template <detail::large_signed_integer T>
struct codec<T> {
  using kind = kinds::scalar<BSON_TYPE_INT64>;
  static void encode(bson_t* parent, std::string_view key, T value) {
    detail::check_append(bson_append_int64(parent, key.data(), detail::key_length(key), value));
  }
  static void decode(const bson_iter_t& it, T& out) {
    switch (bson_iter_type(&it)) {
      case BSON_TYPE_INT64: out = bson_iter_int64(&it); break;
      case BSON_TYPE_INT32: out = bson_iter_int32(&it); break;
      default: detail::throw_unexpected_type(it, "long");
    }
  }
};

// Unsigned integers have no BSON type: storing them as int64 would silently turn
// values above INT64_MAX negative.
template <detail::unsigned_integer T>
struct codec<T> {
  static_assert(detail::dependent_false<T>,
                "odm: unsigned integers have no BSON type; declare the member as std::int32_t or std::int64_t");
};

// double: BSON double. Whole numbers decode too (a shell stores `rating: 7` as int32),
// but only where the double holds them exactly.
template <>
struct codec<double> {
  using kind = kinds::scalar<BSON_TYPE_DOUBLE>;
  static void encode(bson_t* parent, std::string_view key, double value) {
    detail::check_append(bson_append_double(parent, key.data(), detail::key_length(key), value));
  }
  static void decode(const bson_iter_t& it, double& out) {
    switch (bson_iter_type(&it)) {
      case BSON_TYPE_DOUBLE: out = bson_iter_double(&it); return;
      case BSON_TYPE_INT32: out = bson_iter_int32(&it); return;
      case BSON_TYPE_INT64: {
        constexpr std::int64_t exact = std::int64_t{1} << 53;
        const std::int64_t value = bson_iter_int64(&it);
        if (value > exact || value < -exact) [[unlikely]]
          detail::throw_inexact_double(value);
        out = static_cast<double>(value);
        return;
      }
      default: detail::throw_unexpected_type(it, "double");
    }
  }
};

template <class T>
  requires std::same_as<T, float>
struct codec<T> {
  static_assert(detail::dependent_false<T>, "odm: float is not mapped; declare the member as double");
};


// std::string: BSON string, UTF-8 checked both ways (the server would refuse invalid
// UTF-8, and a C++ string decoded from bad bytes would carry them on).
template <>
struct codec<std::string> {
  using kind = kinds::scalar<BSON_TYPE_UTF8>;
  static void encode(bson_t* parent, std::string_view key, const std::string& value) {
    detail::check_utf8(value.data(), value.size(), false);
    if (value.size() > static_cast<std::size_t>(std::numeric_limits<int>::max() - 5)) [[unlikely]]
      throw EncodeError("string exceeds the maximum BSON size");
    detail::check_append(
        bson_append_utf8(parent, key.data(), detail::key_length(key), value.data(), static_cast<int>(value.size())));
  }
  static void decode(const bson_iter_t& it, std::string& out) {
    detail::expect_type(it, BSON_TYPE_UTF8, "string");
    std::uint32_t length = 0;
    const char* data = bson_iter_utf8(&it, &length);
    detail::check_utf8(data, length, true);
    out.assign(data, length);
  }
};

template <class T>
  requires std::same_as<T, std::string_view>
struct codec<T> {
  static_assert(detail::dependent_false<T>,
                "odm: std::string_view does not own its characters, so a decoded document could not hold them; "
                "declare the member as std::string");
};
template <class T>
  requires std::same_as<T, const char*> || std::same_as<T, char*>
struct codec<T> {
  static_assert(detail::dependent_false<T>,
                "odm: const char* does not own its characters; declare the member as std::string");
};

// Enums: stored by enumerator name unless odm::enum_storage<E> says integer. A value
// without a name is refused rather than written as a number nobody can read back.
template <class E>
  requires std::is_enum_v<E>
struct codec<E> {
  using underlying = std::underlying_type_t<E>;
  // int32 when every value fits; int64 for 64-bit and unsigned 32-bit underlying types.
  using stored = std::conditional_t<(sizeof(underlying) < 4 || (sizeof(underlying) == 4 && std::is_signed_v<underlying>)),
                                    std::int32_t, std::int64_t>;
  using kind = std::conditional_t<enum_storage<E> == EnumStorage::integer, kind_of<stored>, kinds::enumeration<E>>;
  static void encode(bson_t* parent, std::string_view key, E value) {
    if constexpr (enum_storage<E> == EnumStorage::integer) {
      const auto raw = static_cast<underlying>(value);
      if constexpr (std::is_unsigned_v<underlying> && sizeof(underlying) == 8) {
        if (raw > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) [[unlikely]]
          throw EncodeError("enum value " + std::to_string(raw) + " does not fit BSON's 64-bit signed integer");
      }
      codec<stored>::encode(parent, key, static_cast<stored>(raw));
    } else {
      const auto name = enum_name(value);
      if (!name) [[unlikely]]
        throw EncodeError("enum value " + std::to_string(static_cast<long long>(value)) +
                          " has no enumerator name to store");
      detail::check_append(bson_append_utf8(parent, key.data(), detail::key_length(key), name->data(),
                                            static_cast<int>(name->size())));
    }
  }
  static void decode(const bson_iter_t& it, E& out) {
    if constexpr (enum_storage<E> == EnumStorage::integer) {
      std::int64_t value = 0;
      codec<std::int64_t>::decode(it, value);
      if (value < static_cast<std::int64_t>(std::numeric_limits<underlying>::min()) ||
          (value > 0 && static_cast<std::uint64_t>(value) > static_cast<std::uint64_t>(std::numeric_limits<underlying>::max())))
        throw DecodeError("value " + std::to_string(value) + " is out of the enum's range");
      out = static_cast<E>(value);
    } else {
      detail::expect_type(it, BSON_TYPE_UTF8, "string");
      std::uint32_t length = 0;
      const char* data = bson_iter_utf8(&it, &length);
      const auto value = enum_from_name<E>(std::string_view(data, length));
      if (!value) [[unlikely]] {
        std::string shown(data, std::min<std::uint32_t>(length, 64));
        throw DecodeError("\"" + shown + "\" is not a name of this enum");
      }
      out = *value;
    }
  }
};

// Dates: BSON date, milliseconds since the Unix epoch in UTC. A time point finer than a
// millisecond (system_clock's nanoseconds) is truncated toward the past on encode, as
// MongoDB itself stores only milliseconds. A coarser time point (std::chrono::sys_days)
// decodes only from a date that is exactly on its grid: a sys_days member refuses
// 2019-02-18T05:00:00Z rather than silently dropping the five hours.
template <class Duration>
struct codec<std::chrono::time_point<std::chrono::system_clock, Duration>> {
  static constexpr bool odm_checked_codec = true;  // see containers.hpp
  using time_point = std::chrono::time_point<std::chrono::system_clock, Duration>;
  using kind = kinds::scalar<BSON_TYPE_DATE_TIME>;
  static void encode(bson_t* parent, std::string_view key, const time_point& value) {
    if constexpr (std::ratio_greater_v<typename Duration::period, std::milli> &&
                  std::is_integral_v<typename Duration::rep>) {
      // A coarser unit (sys_seconds, sys_days) reaches past BSON's int64 milliseconds:
      // compared in its own unit, since converting first would overflow.
      constexpr Duration latest = std::chrono::floor<Duration>(std::chrono::milliseconds::max());
      constexpr Duration earliest = std::chrono::ceil<Duration>(std::chrono::milliseconds::min());
      if (value.time_since_epoch() > latest || value.time_since_epoch() < earliest) [[unlikely]]
        throw EncodeError("time point is out of the range of a BSON date (int64 milliseconds since the epoch)");
    }
    const auto ms = std::chrono::floor<std::chrono::milliseconds>(value).time_since_epoch().count();
    detail::check_append(bson_append_date_time(parent, key.data(), detail::key_length(key), ms));
  }
  static void decode(const bson_iter_t& it, time_point& out) {
    detail::expect_type(it, BSON_TYPE_DATE_TIME, "date");
    const std::int64_t ms = bson_iter_date_time(&it);
    using std::chrono::milliseconds;
    if constexpr (std::ratio_less_equal_v<typename Duration::period, std::milli>) {
      // Finer or equal: exact, as long as the count does not overflow the Duration.
      using rep = typename Duration::rep;
      constexpr auto per_ms = std::chrono::duration_cast<Duration>(milliseconds(1)).count();
      constexpr auto max_ms = std::numeric_limits<rep>::max() / per_ms;
      constexpr auto min_ms = std::numeric_limits<rep>::min() / per_ms;
      if (ms > max_ms || ms < min_ms) [[unlikely]]
        detail::throw_date_out_of_range(ms);
      out = time_point(Duration(static_cast<typename Duration::rep>(ms * per_ms)));
    } else {
      constexpr auto grid = std::chrono::duration_cast<milliseconds>(Duration(1)).count();
      if (ms % grid != 0) [[unlikely]]
        detail::throw_date_off_grid(ms, grid);
      out = time_point(Duration(static_cast<typename Duration::rep>(ms / grid)));
    }
  }
};

namespace detail {
// The BSON types each scalar decodes from, for std::variant (codec.hpp's variant_shape).
template <>
struct variant_shape<bool> : decoded_shape<bool, type_bits(BSON_TYPE_BOOL)> {};
template <class T>
  requires small_signed_integer<T> || large_signed_integer<T>
struct variant_shape<T> : decoded_shape<T, type_bits(BSON_TYPE_INT32, BSON_TYPE_INT64)> {};
template <>
struct variant_shape<double> : decoded_shape<double, type_bits(BSON_TYPE_DOUBLE, BSON_TYPE_INT32, BSON_TYPE_INT64)> {};
template <>
struct variant_shape<std::string> : decoded_shape<std::string, type_bits(BSON_TYPE_UTF8)> {};
template <class E>
  requires std::is_enum_v<E>
struct variant_shape<E> : decoded_shape<E, enum_storage<E> == EnumStorage::integer
                                               ? type_bits(BSON_TYPE_INT32, BSON_TYPE_INT64)
                                               : type_bits(BSON_TYPE_UTF8)> {
  using reads = std::conditional_t<enum_storage<E> == EnumStorage::integer,
                                   reads_by_decoding<type_bits(BSON_TYPE_INT32, BSON_TYPE_INT64)>,
                                   reads_enumerator_name<E>>;
};
template <class Duration>
struct variant_shape<std::chrono::time_point<std::chrono::system_clock, Duration>>
    : decoded_shape<std::chrono::time_point<std::chrono::system_clock, Duration>, type_bits(BSON_TYPE_DATE_TIME)> {};
}  // namespace detail

}  // namespace odm
