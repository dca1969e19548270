int
main(void)
{
	return 6 * 7 == 42 ? 0 : 1;
}
