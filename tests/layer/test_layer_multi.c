/* Several instances and devices alive at once, created and destroyed in interleaved orders.
 * Each device's trivial workload (an empty command buffer and a vkCmdFillBuffer, submitted with
 * a fence) must produce the right buffer contents, and the spy below passprobe must see each
 * submission on the device it was made on (the layer dispatched through the right device's
 * table) with passprobe's timestamps around the fill (the layer tracks each device on its own).
 * Instance B asks for Vulkan 1.1, so its device gets host query reset through
 * VK_EXT_host_query_reset rather than the 1.2 core feature. */
#include <string.h>

#include "lt_common.h"

static struct lt_spy g_below;

struct dev_state {
	const char *name;
	struct lt_device d;
	uint64_t submits; /* vkQueueSubmit the spy should have seen on this device */
	uint32_t value;
};

static void create(struct dev_state *s, const char *name, VkInstance instance)
{
	s->name = name;
	s->submits = 0;
	VkResult r = lt_device_create(&s->d, instance, NULL, NULL, 0, NULL);
	CHECKF(r == VK_SUCCESS, "device %s: VkResult %d", name, r);
}

static void work(struct dev_state *s)
{
	if (!s->d.device)
		return;
	s->value = s->value * 7919u + 17u + (uint32_t)(uintptr_t)s->name;
	CHECKF(lt_device_fill(&s->d, s->value), "device %s: fill result wrong", s->name);
	s->submits++;
	struct spy_device_record rec;
	if (!g_below.loaded)
		return;
	CHECKF(g_below.device(s->d.device, &rec) == 0, "device %s unknown to the spy below", s->name);
	CHECKF(rec.counts[SPY_QUEUE_SUBMIT] == s->submits, "device %s: spy saw %llu submits, expected %llu",
	       s->name, (unsigned long long)rec.counts[SPY_QUEUE_SUBMIT], (unsigned long long)s->submits);
	CHECKF(rec.counts[SPY_CMD_WRITE_TIMESTAMP] >= 2 * s->submits,
	       "device %s: %llu timestamps for %llu fills", s->name,
	       (unsigned long long)rec.counts[SPY_CMD_WRITE_TIMESTAMP], (unsigned long long)s->submits);
}

static void destroy(struct dev_state *s)
{
	lt_device_destroy(&s->d);
}

int main(void)
{
	VkInstance a, b, c;
	struct dev_state a1 = { 0 }, a2 = { 0 }, b1 = { 0 }, b2 = { 0 }, c1 = { 0 };

	if (CHECK_VK(lt_instance_create(VK_API_VERSION_1_3, &a)) != VK_SUCCESS)
		return lt_finish();
	if (CHECK_VK(lt_instance_create(VK_API_VERSION_1_1, &b)) != VK_SUCCESS)
		return lt_finish();
	CHECKF(lt_spy_get("below", &g_below), "the spy below passprobe is not loaded");

	create(&a1, "A1", a);
	create(&b1, "B1", b);
	create(&a2, "A2", a);
	CHECK(a1.d.device != a2.d.device && a1.d.device != b1.d.device);
	work(&a1);
	work(&b1);
	work(&a2);
	work(&a1);

	destroy(&a1); /* the first device of A goes while A's second and B's stay */
	work(&b1);
	work(&a2);

	create(&b2, "B2", b);
	work(&b2);
	destroy(&b1); /* B's first device goes; B lives on through B2 */
	work(&a2);
	work(&b2);

	destroy(&a2);
	lt_instance_destroy(a); /* the first instance goes while B's device still works */
	work(&b2);

	if (CHECK_VK(lt_instance_create(VK_API_VERSION_1_3, &c)) == VK_SUCCESS) {
		create(&c1, "C1", c);
		work(&c1);
		work(&b2);
		destroy(&b2);
		lt_instance_destroy(b);
		work(&c1);
		destroy(&c1);
		lt_instance_destroy(c);
	}

	/* A second round in reverse creation order, on fresh instances. */
	VkInstance d, e;
	struct dev_state d1 = { 0 }, e1 = { 0 };
	if (CHECK_VK(lt_instance_create(VK_API_VERSION_1_2, &d)) == VK_SUCCESS &&
	    CHECK_VK(lt_instance_create(VK_API_VERSION_1_3, &e)) == VK_SUCCESS) {
		create(&e1, "E1", e);
		create(&d1, "D1", d);
		work(&d1);
		work(&e1);
		lt_device_destroy(&e1.d);
		lt_instance_destroy(e);
		work(&d1);
		lt_device_destroy(&d1.d);
		lt_instance_destroy(d);
	}

	/* More devices alive at once than the layer finds without a lock (layer_registry.c keeps
	 * the first eight in an array, the others in its table): every device's hooks must reach
	 * its own dispatch and its own tracking, with devices going and coming between, so that
	 * freed slots of the array are taken again while devices beyond it still live. */
	static const char *const names[] = { "M0", "M1", "M2",  "M3",  "M4",  "M5",  "M6",  "M7",
					     "M8", "M9", "M10", "M11", "M12", "M13", "M14", "M15" };
	struct dev_state many[16] = { 0 };
	VkInstance m;
	if (CHECK_VK(lt_instance_create(VK_API_VERSION_1_3, &m)) == VK_SUCCESS) {
		for (int i = 0; i < 12; i++)
			create(&many[i], names[i], m);
		for (int i = 11; i >= 0; i--)
			work(&many[i]);
		for (int i = 0; i < 12; i += 2)
			destroy(&many[i]); /* six slots of the array free, M9 and M11 beyond it */
		for (int i = 1; i < 12; i += 2)
			work(&many[i]);
		for (int i = 12; i < 16; i++)
			create(&many[i], names[i], m);
		for (int i = 0; i < 16; i++)
			work(&many[i]);
		for (int i = 0; i < 16; i++)
			destroy(&many[i]);
		lt_instance_destroy(m);
	}

	CHECKF(lt_debug_errors() == 0, "%u error messages", lt_debug_errors());
	return lt_finish();
}
