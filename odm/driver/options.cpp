// ClientOptions' setters (odm/driver/options.hpp), compiled once here.
#include <odm/driver/options.hpp>
#include "special_members.hpp"

#include <limits>

namespace odm {

namespace detail {

// The specs' special members (options.hpp says why they are out of line).
CommonSpec::CommonSpec() = default;
CommonSpec::CommonSpec(const CommonSpec&) = default;
CommonSpec::CommonSpec(CommonSpec&&) noexcept = default;
CommonSpec& CommonSpec::operator=(const CommonSpec&) = default;
CommonSpec& CommonSpec::operator=(CommonSpec&&) noexcept = default;
CommonSpec::~CommonSpec() = default;

FindSpec::FindSpec() = default;
FindSpec::FindSpec(const FindSpec&) = default;
FindSpec::FindSpec(FindSpec&&) noexcept = default;
FindSpec& FindSpec::operator=(const FindSpec&) = default;
FindSpec& FindSpec::operator=(FindSpec&&) noexcept = default;
FindSpec::~FindSpec() = default;

CountSpec::CountSpec() = default;
CountSpec::CountSpec(const CountSpec&) = default;
CountSpec::CountSpec(CountSpec&&) noexcept = default;
CountSpec& CountSpec::operator=(const CountSpec&) = default;
CountSpec& CountSpec::operator=(CountSpec&&) noexcept = default;
CountSpec::~CountSpec() = default;

AggregateSpec::AggregateSpec() = default;
AggregateSpec::AggregateSpec(const AggregateSpec&) = default;
AggregateSpec::AggregateSpec(AggregateSpec&&) noexcept = default;
AggregateSpec& AggregateSpec::operator=(const AggregateSpec&) = default;
AggregateSpec& AggregateSpec::operator=(AggregateSpec&&) noexcept = default;
AggregateSpec::~AggregateSpec() = default;

UpdateSpec::UpdateSpec() = default;
UpdateSpec::UpdateSpec(const UpdateSpec&) = default;
UpdateSpec::UpdateSpec(UpdateSpec&&) noexcept = default;
UpdateSpec& UpdateSpec::operator=(const UpdateSpec&) = default;
UpdateSpec& UpdateSpec::operator=(UpdateSpec&&) noexcept = default;
UpdateSpec::~UpdateSpec() = default;

DeleteSpec::DeleteSpec() = default;
DeleteSpec::DeleteSpec(const DeleteSpec&) = default;
DeleteSpec::DeleteSpec(DeleteSpec&&) noexcept = default;
DeleteSpec& DeleteSpec::operator=(const DeleteSpec&) = default;
DeleteSpec& DeleteSpec::operator=(DeleteSpec&&) noexcept = default;
DeleteSpec::~DeleteSpec() = default;

InsertSpec::InsertSpec() = default;
InsertSpec::InsertSpec(const InsertSpec&) = default;
InsertSpec::InsertSpec(InsertSpec&&) noexcept = default;
InsertSpec& InsertSpec::operator=(const InsertSpec&) = default;
InsertSpec& InsertSpec::operator=(InsertSpec&&) noexcept = default;
InsertSpec::~InsertSpec() = default;

FindAndModifySpec::FindAndModifySpec() = default;
FindAndModifySpec::FindAndModifySpec(const FindAndModifySpec&) = default;
FindAndModifySpec::FindAndModifySpec(FindAndModifySpec&&) noexcept = default;
FindAndModifySpec& FindAndModifySpec::operator=(const FindAndModifySpec&) = default;
FindAndModifySpec& FindAndModifySpec::operator=(FindAndModifySpec&&) noexcept = default;
FindAndModifySpec::~FindAndModifySpec() = default;

}  // namespace detail

ODM_DEFINE_SPECIAL_MEMBERS(ClientOptions);

ClientOptions& ClientOptions::server_selection_timeout(std::chrono::milliseconds timeout) {
  server_selection_timeout_ = timeout;
  return *this;
}

ClientOptions& ClientOptions::connect_timeout(std::chrono::milliseconds timeout) {
  connect_timeout_ = timeout;
  return *this;
}

ClientOptions& ClientOptions::socket_timeout(std::chrono::milliseconds timeout) {
  socket_timeout_ = timeout;
  return *this;
}

ClientOptions& ClientOptions::pool_wait_timeout(std::chrono::milliseconds timeout) {
  pool_wait_timeout_ = timeout;
  return *this;
}

ClientOptions& ClientOptions::max_pool_size(std::uint32_t size) {
  max_pool_size_ = size;
  return *this;
}

ClientOptions& ClientOptions::app_name(std::string name) {
  app_name_ = std::move(name);
  return *this;
}

ClientOptions& ClientOptions::capture_command_documents(bool capture) {
  monitor_.capture_documents = capture;
  return *this;
}

ClientOptions& ClientOptions::command_monitor(CommandMonitor monitor) {
  monitor_ = std::move(monitor);
  return *this;
}

ClientOptions& ClientOptions::read_preference(ReadPreference preference) {
  concerns_.read_preference = std::move(preference);
  return *this;
}

ClientOptions& ClientOptions::read_concern(ReadConcern concern) {
  concerns_.read_concern = concern;
  return *this;
}

ClientOptions& ClientOptions::write_concern(WriteConcern concern) {
  concerns_.write_concern = std::move(concern);
  return *this;
}

ClientOptions& ClientOptions::on_command_started(std::function<void(const CommandEvent&)> callback) {
  monitor_.started = std::move(callback);
  return *this;
}

ClientOptions& ClientOptions::on_command_succeeded(std::function<void(const CommandEvent&)> callback) {
  monitor_.succeeded = std::move(callback);
  return *this;
}

ClientOptions& ClientOptions::on_command_failed(std::function<void(const CommandEvent&)> callback) {
  monitor_.failed = std::move(callback);
  return *this;
}

namespace detail {

void check_max_time(std::chrono::milliseconds limit) {
  // maxTimeMS is a 32-bit count: MongoDB refuses a larger one ("maxTimeMS out of range").
  if (limit.count() < 0 || limit.count() > std::numeric_limits<std::int32_t>::max())
    throw ConfigurationError("max_time must be between 0 and 2147483647 ms (maxTimeMS), not " +
                             std::to_string(limit.count()) + " ms");
}

Document hint_by_name(const std::string& index_name) {
  check_option_text(index_name, "the hint (an index name)");
  Document hint;
  check_append(bson_append_utf8(hint.get_mutable(), "hint", 4, index_name.data(), static_cast<int>(index_name.size())));
  return hint;
}

}  // namespace detail

}  // namespace odm
