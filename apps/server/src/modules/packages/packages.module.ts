import { Module } from '@nestjs/common';
import { UpdateVettedPackagesHandler, UploadDarHandler, ValidateDarHandler } from './commands/package-command.handlers';
import {
  GetPackageDefinitionsHandler,
  GetPackageHandler,
  GetPackageStatusHandler,
  GetPreferredPackagesHandler,
  ListPackageDefinitionsHandler,
  ListPackagesHandler,
  ListVettedPackagesHandler,
} from './queries/package-query.handlers';
import { PackagesController } from './packages.controller';

@Module({
  controllers: [PackagesController],
  providers: [
    UploadDarHandler,
    ValidateDarHandler,
    UpdateVettedPackagesHandler,
    ListPackagesHandler,
    GetPackageHandler,
    GetPackageStatusHandler,
    ListVettedPackagesHandler,
    GetPreferredPackagesHandler,
    ListPackageDefinitionsHandler,
    GetPackageDefinitionsHandler,
  ],
})
export class PackagesModule {}
