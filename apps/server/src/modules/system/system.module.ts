import { Module } from '@nestjs/common';
import { StateController } from './state.controller';
import { SystemController } from './system.controller';

@Module({ controllers: [SystemController, StateController] })
export class SystemModule {}
