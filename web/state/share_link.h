// Share links: the page state in the URL fragment, versioned and readable,
//   #v=1&model=mlp:layers%3D6&cluster=lecture:2x4&mesh=2x4&strategy=dp;fc1=1x4@0&beta=500&search.steps=2000
// Every scalar of the getState object is one key=value pair (nested objects flatten to dotted
// keys such as search.steps or cluster.gpu.peak_tflops); strategies keep their compact text form
// (strategy_text.h); an imported model file travels as base64url JSON in model_json. The same
// text is what the page keeps in localStorage. Decoding is strict and bounded, and what it
// yields is still validated by apply_settings_json, which names the offending field. No ImGui.
#pragma once
#include <string>

#include "app_state.h"
#include "json_io.h"
#include "result.h"

namespace autopar::web {

// The link format version this build writes and reads.
constexpr int kShareLinkVersion = 1;
// Longest fragment accepted (an imported model dominates; Chromium allows 2 MB URLs).
constexpr size_t kMaxShareFragmentBytes = 4 << 20;

// The fragment (without '#') encoding a getState object: "v=1" first, then its fields in order.
std::string encode_share_fragment(const Json& state);

// The fragment of the current settings.
std::string share_fragment(const Settings& settings);

// Decodes a fragment (without '#') into a partial state object for apply_settings_json. Also
// reads the older "state=<URI-encoded JSON>" form. Errors (code "bad_link") name the key, e.g.
// path "link.beta", and say how to fix the link.
Result<Json> decode_share_fragment(const std::string& fragment);

// Restores the state a fragment describes; `source` names where it came from in notices ("the
// link", "the last session"). A fragment without `space` restores Alpa's space (older links). On
// any error the state is left as it was and the notice says why.
Status apply_share_fragment(AppState& state, const std::string& fragment, const std::string& source);

// RFC 4648 base64url (no padding) of bytes.
std::string base64url_encode(const std::string& bytes);
// Decodes base64url (padding optional); an error names `path` when a character is not in the
// alphabet or the length is impossible.
Result<std::string> base64url_decode(const std::string& text, const std::string& path);

// True when `text` is well-formed UTF-8 (no overlongs, surrogates or code points past U+10FFFF).
bool is_valid_utf8(const std::string& text);

}  // namespace autopar::web
