#include <cap-ng.h>
#include <errno.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "caps.h"

int
caps_held(bool *setpcap)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	bool any = false;

	if (syscall(SYS_capget, &hdr, data) < 0)
		return -errno;
	for (size_t i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
		any |= (data[i].permitted | data[i].inheritable |
			data[i].effective) != 0;
	if (setpcap != NULL)
		*setpcap = (data[CAP_TO_INDEX(CAP_SETPCAP)].effective &
			    CAP_TO_MASK(CAP_SETPCAP)) != 0;
	return any;
}

int
caps_drop(bool bounding)
{
	const capng_select_t set = CAPNG_SELECT_CAPS | CAPNG_SELECT_AMBIENT;

	/* Capability numbers past the kernel's last one are EINVAL: the
	 * loop ends there, whatever this build's headers know. */
	for (unsigned long c = 0; bounding; c++)
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0) {
			if (errno == EINVAL && c > 0)
				break;
			return -errno;
		}
	/* capset(2) with nothing, and the ambient set cleared (none before
	 * Linux 4.3: libcap-ng knows). */
	capng_clear(set);
	if (capng_apply(set) < 0)
		return -EPERM;
	return 0;
}
