// Dates: std::chrono::system_clock time points and std::chrono::sys_days as BSON date
// (milliseconds since the epoch, UTC).

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <chrono>

namespace bson_dates_test {

using namespace std::chrono;
using odm_test::day;
using odm_test::decode;
using odm_test::decode_error;
using odm_test::encoded;

struct Event {
  system_clock::time_point at;
  bool operator==(const Event&) const = default;
};

struct Millis {
  sys_time<milliseconds> at;
  bool operator==(const Millis&) const = default;
};

struct Seconds {
  sys_seconds at;
  bool operator==(const Seconds&) const = default;
};

struct Birthday {
  struct Person {
    sys_days born;
    bool operator==(const Person&) const = default;
  };
  Person person;
  bool operator==(const Birthday&) const = default;
};

std::string date_json(long long ms) {
  return R"({"at": {"$date": {"$numberLong": ")" + std::to_string(ms) + R"("}}})";
}

TEST(Dates, StoredAsBsonDateToTheMillisecond) {
  const Event event{system_clock::time_point(milliseconds(1550448000123))};
  EXPECT_EQ(encoded(event), odm_test::canonical(date_json(1550448000123)));
  EXPECT_EQ(odm_test::round_trip(event), event);
  EXPECT_EQ(decode<Event>(R"({"at": {"$date": "2019-02-18T00:00:00.123Z"}})"), event);
}

TEST(Dates, MillisecondAndSecondTimePoints) {
  const Millis millis{sys_time<milliseconds>(milliseconds(-1))};
  EXPECT_EQ(encoded(millis), odm_test::canonical(date_json(-1)));
  EXPECT_EQ(odm_test::round_trip(millis), millis);
  const Seconds seconds{sys_seconds(std::chrono::seconds(1627056201))};
  EXPECT_EQ(encoded(seconds), odm_test::canonical(date_json(1627056201000)));
  EXPECT_EQ(odm_test::round_trip(seconds), seconds);
  // A seconds member refuses a date with milliseconds rather than dropping them.
  EXPECT_EQ(decode_error<Seconds>(date_json(1627056201500)).rfind("at: date 1627056201500 ms is not a whole number", 0),
            0u);
}

TEST(Dates, SubMillisecondIsTruncatedTowardThePast) {
  const auto base = system_clock::time_point(milliseconds(1000));
  EXPECT_EQ(encoded(Event{base + microseconds(999)}), odm_test::canonical(date_json(1000)));
  EXPECT_EQ(encoded(Event{base + nanoseconds(1)}), odm_test::canonical(date_json(1000)));
  // Before 1970 "toward the past" is away from zero: -0.5 ms is stored as -1 ms.
  EXPECT_EQ(encoded(Event{system_clock::time_point(-microseconds(500))}), odm_test::canonical(date_json(-1)));
  EXPECT_EQ(encoded(Event{system_clock::time_point(-nanoseconds(1))}), odm_test::canonical(date_json(-1)));
  EXPECT_EQ(encoded(Event{system_clock::time_point(-milliseconds(1000) - nanoseconds(1))}),
            odm_test::canonical(date_json(-1001)));
  EXPECT_EQ(encoded(Event{system_clock::time_point(-milliseconds(1000))}), odm_test::canonical(date_json(-1000)));
  // The decoded value is the truncated one.
  EXPECT_EQ(odm_test::round_trip(Event{base + microseconds(999)}), Event{base});
}

TEST(Dates, NegativeAndFarDates) {
  // 1896-01-25 (seed 000's train movie) and the year 1.
  const Event old{system_clock::time_point(sys_days(year(1896) / 1 / 25))};
  EXPECT_EQ(encoded(old), odm_test::canonical(date_json(-2333145600000)));
  EXPECT_EQ(odm_test::round_trip(old), old);
  const Millis first{sys_time<milliseconds>(sys_days(year(1) / 1 / 1))};
  EXPECT_EQ(odm_test::round_trip(first), first);
}

TEST(Dates, DateOutOfTheTimePointsRangeIsAnError) {
  // system_clock::time_point counts nanoseconds in 64 bits: about ±292 years around 1970.
  EXPECT_EQ(decode_error<Event>(date_json(253402300799999)),  // 9999-12-31T23:59:59.999Z
            "at: date 253402300799999 ms is out of this time point's range");
  EXPECT_EQ(decode_error<Event>(date_json(-9223372036854775807LL - 1)),
            "at: date -9223372036854775808 ms is out of this time point's range");
  EXPECT_EQ(decode_error<Event>(date_json(9223372036855)), "at: date 9223372036855 ms is out of this time point's range");
  EXPECT_EQ(decode<Event>(date_json(9223372036854)).at.time_since_epoch().count(), 9223372036854000000);
  EXPECT_EQ(decode<Event>(date_json(-9223372036854)).at.time_since_epoch().count(), -9223372036854000000);
  // A millisecond time point holds the dates of year 9999 and far beyond.
  EXPECT_EQ(decode<Millis>(date_json(253402300799999)).at.time_since_epoch().count(), 253402300799999);
  EXPECT_EQ(decode<Millis>(date_json(9223372036854775807LL)).at.time_since_epoch().count(), 9223372036854775807LL);
  EXPECT_EQ(decode<Millis>(date_json(-9223372036854775807LL)).at.time_since_epoch().count(), -9223372036854775807LL);
}

TEST(Dates, MillisecondTimePointHoldsTheSmallestBsonDate) {
  // INT64_MIN ms is a BSON date and a sys_time<milliseconds> holds it, but the range
  // check in scalars.hpp compares against -max (ms < -max_ms) instead of the minimum,
  // so exactly this one value is refused.
  EXPECT_EQ(decode_error<Millis>(date_json(-9223372036854775807LL - 1)), "<no error>");
}

TEST(Dates, SysDaysIsMidnightUtc) {
  const Birthday b{{day(2020, 1, 23)}};
  EXPECT_EQ(encoded(b), odm_test::canonical(R"({"person": {"born": {"$date": {"$numberLong": "1579737600000"}}}})"));
  EXPECT_EQ(odm_test::round_trip(b), b);
  EXPECT_EQ(decode<Birthday>(R"({"person": {"born": {"$date": "1896-01-25T00:00:00Z"}}})"),
            (Birthday{{day(1896, 1, 25)}}));
}

TEST(Dates, SysDaysRefusesADateThatIsNotMidnight) {
  const std::string error = decode_error<Birthday>(R"({"person": {"born": {"$date": "2019-02-18T05:00:00Z"}}})");
  EXPECT_EQ(error,
            "person.born: date 1550466000000 ms is not a whole number of the member's time unit (86400000 ms); "
            "declare it as std::chrono::system_clock::time_point");
  // One millisecond either side of midnight, before and after 1970.
  EXPECT_NE(decode_error<Birthday>(R"({"person": {"born": {"$date": {"$numberLong": "1579737600001"}}}})"),
            "<no error>");
  EXPECT_NE(decode_error<Birthday>(R"({"person": {"born": {"$date": {"$numberLong": "1579737599999"}}}})"),
            "<no error>");
  EXPECT_NE(decode_error<Birthday>(R"({"person": {"born": {"$date": {"$numberLong": "-1"}}}})"), "<no error>");
  EXPECT_EQ(decode<Birthday>(R"({"person": {"born": {"$date": {"$numberLong": "-86400000"}}}})"),
            (Birthday{{day(1969, 12, 31)}}));
}

TEST(Dates, WrongTypeIsAnError) {
  EXPECT_EQ(decode_error<Event>(R"({"at": "2019-02-18"})"), "at: expected date, got string");
  EXPECT_EQ(decode_error<Event>(R"({"at": {"$numberLong": "1550448000000"}})"), "at: expected date, got long");
  EXPECT_EQ(decode_error<Event>(R"({"at": {"$timestamp": {"t": 1, "i": 1}}})"), "at: expected date, got timestamp");
}

}  // namespace bson_dates_test
