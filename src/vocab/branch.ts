/** `refs/heads/main` (Azure) and `origin/main` (Jenkins) both mean `main`. */
export function normaliseBranchName(value: string): string {
  return value.replace(/^refs\/heads\//, '').replace(/^origin\//, '');
}
