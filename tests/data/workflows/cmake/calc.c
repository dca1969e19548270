#include <stdio.h>

int
main(void)
{
	printf("%d\n", 6 * 7);
	return 0;
}
