#include "imsb/objects/catalog.hpp"

#include <utility>

namespace imsb::objects {

const queue_definition* catalog_snapshot::find(std::string_view name) const {
  auto it = queues.find(name);
  return it == queues.end() ? nullptr : &it->second;
}

void catalog_snapshot::put(queue_definition def) {
  std::string key = def.name;
  queues.insert_or_assign(std::move(key), std::move(def));
}

}  // namespace imsb::objects
