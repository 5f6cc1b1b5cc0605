import bcrypt from 'bcrypt';

export const hashPassword = (password: string, cost: number): Promise<string> => bcrypt.hash(password, cost);

export const passwordMatches = (password: string, hash: string): Promise<boolean> => bcrypt.compare(password, hash);
