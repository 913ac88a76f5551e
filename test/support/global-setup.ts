// Placeholder: replaced by the database resolution (TEST_DATABASE_URL → Testcontainers → embedded).
export default async function setup(): Promise<void> {}
