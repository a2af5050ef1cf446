// The page's settings as JSON: the getState object, and setState's partial objects read, checked
// through the core and applied atomically (app_state.h apply_settings). No ImGui.
#pragma once
#include <string>

#include "app_state.h"

namespace autopar::web {

// Applies a partial settings object given as JSON text (`window.autopar.setState`): unknown
// fields and wrong types are errors naming the field; atomic like apply_settings.
Status apply_settings_json(AppState& state, const std::string& json_text);

// Reads the fields of a partial state object into `next` without loading anything; a strategy
// object is read last, for the model and cluster of `next`, whatever the key order. "scenario"
// and "exercise" are left to the caller.
Status merge_settings_fields(const Json& object, Settings& next);

// Applies a partial settings object (the parsed form of apply_settings_json); atomic likewise.
Status apply_settings_object(AppState& state, const Json& object);

// The settings as the getState object (cluster is a spec string, or an object when edited).
Json settings_to_json(const Settings& settings);

}  // namespace autopar::web
