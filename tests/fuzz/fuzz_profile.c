/* SPDX-License-Identifier: MIT */
/* Fuzz the profile loader: any bytes are parsed and validated (errors must name a position and
 * never crash); a profile that loads is then used to judge a small facts document. */
#include <jansson.h>
#include <stdint.h>

#include "core/arena.h"
#include "rules/rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char facts_text[] =
	"{\"host\": {\"cpu\": {\"vendor\": \"AuthenticAMD\"}, \"x2apic\": {\"supported\": true, \"enabled\": false}},"
	" \"mlx\": {\"adapters\": [{\"bdf\": \"0000:3b:00.0\", \"product\": \"ConnectX-7\", \"generation\": \"ConnectX-7\","
	" \"psid\": \"MT_0000000838\", \"fw_version\": \"28.39.1002\", \"netdevs\": [\"eth0\"],"
	" \"ports\": [{\"port\": 1, \"rdma_device\": \"mlx5_0\", \"state\": \"PORT_ACTIVE\", \"rate_gbps\": 200}]}]},"
	" \"netdevs\": [{\"name\": \"eth0\", \"bdf\": \"0000:3b:00.0\", \"mtu\": 1500}],"
	" \"pci\": {\"devices\": [{\"bdf\": \"0000:3b:00.0\", \"link\": {\"speed_gts\": 16, \"width\": 8}}]}}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hwc_profile *p = NULL;
	char err[512];
	if (hwc_profile_parse("fuzz.json", (const char *)data, size, &p, err, sizeof(err)) < 0)
		return 0;
	json_t *facts = json_loads(facts_text, 0, NULL);
	struct hwc_arena *a = hwc_arena_new();
	if (facts && a) {
		struct hwc_findings fd = {0};
		hwc_rules_eval(facts, p, a, &fd);
		json_decref(hwc_findings_to_json(&fd));
	}
	hwc_arena_free(a);
	json_decref(facts);
	hwc_profile_free(p);
	return 0;
}
